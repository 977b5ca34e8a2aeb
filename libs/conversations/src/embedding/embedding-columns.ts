import { vectorProblem } from '@loom/providers';
import type { EmbeddingRow } from '../rows';
import type { EmbedOutcome } from './embedding.client';

/** Why an embedding row has no vector: text with no words, or a vector no column should hold. */
export const NO_VECTOR = 'no_vector';

/**
 * The vector columns of an embedding row from the embedder's answer for text `index`. This is
 * where vectors become rows, so it is where a vector a column cannot take (zero norm, a
 * component that is not finite, the wrong length) is stopped: the row keeps no vector and says
 * why in `embed_error`, like a failed embed. Search leaves such rows out of vector ranking, and
 * the substring match still finds their turns (a turn of "?" or "👍" among them).
 */
export function embeddingColumns(embedded: EmbedOutcome, index = 0): Pick<EmbeddingRow, 'model' | 'embedding' | 'embed_error'> {
  if (!embedded.ok) return { model: '', embedding: [], embed_error: `${embedded.reason}: ${embedded.message}`.slice(0, 500) };
  const vector = embedded.vectors[index];
  const problem = vectorProblem(vector, embedded.dims);
  if (problem !== undefined) return { model: '', embedding: [], embed_error: `${NO_VECTOR}: ${problem}` };
  return { model: embedded.model, embedding: vector!, embed_error: '' };
}

/** The query's vector when it can rank (see embeddingColumns), else undefined: search by substring. */
export function usableQueryVector(embedded: EmbedOutcome | undefined): { vector: number[]; model: string } | undefined {
  if (!embedded?.ok) return undefined;
  const vector = embedded.vectors[0];
  return vectorProblem(vector, embedded.dims) === undefined ? { vector: vector!, model: embedded.model } : undefined;
}
