import type { EmbeddingRow } from '../rows';
import { termFrequencies } from './tokenizer';

/**
 * The lexical index of one turn, as its embedding row carries it: the distinct terms of the
 * whole text with their frequencies, and the text's length in terms. The engine turns each
 * inserted version of the row into postings (conversation_terms), so whatever retires or hands
 * over the embedding row does the same to the postings.
 */
export function lexicalColumns(content: string): Pick<EmbeddingRow, 'lex_terms' | 'lex_tfs' | 'lex_len'> {
  const { tf, length } = termFrequencies(content);
  return { lex_terms: [...tf.keys()], lex_tfs: [...tf.values()], lex_len: length };
}
