import type { EmbeddingRow } from '../rows';
import { termFrequencies } from './tokenizer';

/**
 * The revision of the tokenizer that `lexicalColumns` writes: 1 is Porter stems (migration
 * 0046). Rows below it hold terms another tokenizer wrote (words as typed), and the lexical
 * backfill re-derives them. Raise it whenever a change to the tokenizer changes the terms.
 */
export const LEXICAL_REVISION = 1;

/**
 * The lexical index of one turn, as its embedding row carries it: the distinct terms of the
 * whole text with their frequencies, the text's length in terms, and the tokenizer revision.
 * The engine turns each inserted version of the row into postings (conversation_terms,
 * saved_terms), so whatever retires or hands over the embedding row does the same to the
 * postings. Every writer of terms uses this one function (append, save, compaction, backfill).
 */
export function lexicalColumns(content: string): Pick<EmbeddingRow, 'lex_terms' | 'lex_tfs' | 'lex_len' | 'lex_rev'> {
  const { tf, length } = termFrequencies(content);
  return { lex_terms: [...tf.keys()], lex_tfs: [...tf.values()], lex_len: length, lex_rev: LEXICAL_REVISION };
}
