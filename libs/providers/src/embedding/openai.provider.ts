import type { OpenAI } from 'openai';
import { createOpenAiClient, describeEndpoint, mapOpenAiError } from '../internal/openai-client';
import { l2Normalize } from '../vector';
import { EmbeddingProviderError } from './embedding.errors';
import type { EmbeddingProvider } from './embedding.provider';

export interface OpenAiEmbeddingProviderOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Expected vector length; when absent it is learned from the first response. */
  dims?: number;
  timeoutMs?: number;
}

/**
 * Inputs per HTTP request. Self-hosted servers often cap batch size well below OpenAI's 2,048
 * (text-embeddings-inference defaults to 32), and Loom's turns are up to 2,048 chars each, so small
 * sequential requests are the portable choice.
 */
export const OPENAI_MAX_INPUTS_PER_REQUEST = 32;

const WHAT = 'Embeddings request';

/** Any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM, TEI, LiteLLM, ...). */
export class OpenAiEmbeddingProvider implements EmbeddingProvider {
  readonly name = 'openai';
  readonly model: string;
  private learnedDims: number;
  private readonly client: OpenAI;
  private readonly endpoint: string;

  constructor(options: OpenAiEmbeddingProviderOptions) {
    if (!options.baseUrl || !options.model) {
      throw new EmbeddingProviderError('The openai embedding provider needs both baseUrl and model', false);
    }
    if (options.dims !== undefined && (!Number.isInteger(options.dims) || options.dims <= 0)) {
      throw new EmbeddingProviderError(`The openai embedding provider got an invalid dims: ${options.dims}`, false);
    }
    this.model = options.model;
    this.learnedDims = options.dims ?? 0;
    this.endpoint = describeEndpoint(options.baseUrl);
    this.client = createOpenAiClient(options);
  }

  /** Configured dims, else the length seen in the first response, else 0. */
  get dims(): number {
    return this.learnedDims;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let start = 0; start < texts.length; start += OPENAI_MAX_INPUTS_PER_REQUEST) {
      const chunk = texts.slice(start, start + OPENAI_MAX_INPUTS_PER_REQUEST);
      out.push(...(await this.embedChunk(chunk)));
    }
    return out;
  }

  private async embedChunk(texts: string[]): Promise<number[][]> {
    let response: { data?: unknown };
    try {
      // base64 is requested explicitly (it is also the SDK default) so the SDK hands back the raw
      // payload: servers that ignore encoding_format and answer with float arrays would otherwise
      // be "decoded" by the SDK into garbage of a quarter of the length, silently.
      response = (await this.client.embeddings.create({
        model: this.model,
        input: texts,
        encoding_format: 'base64',
      })) as { data?: unknown };
    } catch (error) {
      const mapped = mapOpenAiError(error, WHAT, this.endpoint);
      throw new EmbeddingProviderError(mapped.message, mapped.retryable, mapped.cause === undefined ? undefined : { cause: mapped.cause });
    }
    return this.readVectors(response.data, texts.length);
  }

  private readVectors(data: unknown, expected: number): number[][] {
    if (!Array.isArray(data) || data.length !== expected) {
      throw this.badResponse(`expected ${expected} embeddings, got ${Array.isArray(data) ? data.length : 'none'}`);
    }
    const items = data as Array<{ index?: unknown; embedding?: unknown } | null>;
    // Servers may answer out of order; `index` is the contract. Fall back to array order only when
    // no item carries an index at all.
    const hasIndex = items.some((item) => item !== null && typeof item === 'object' && item.index !== undefined);
    const vectors = new Array<number[] | undefined>(expected);
    items.forEach((item, position) => {
      if (item === null || typeof item !== 'object') throw this.badResponse('an embedding item is not an object');
      const index = hasIndex ? item.index : position;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected || vectors[index]) {
        throw this.badResponse('embedding indexes are missing, duplicated or out of range');
      }
      vectors[index] = l2Normalize(this.checkDims(decodeEmbedding(item.embedding, (reason) => this.badResponse(reason))));
    });
    return vectors as number[][];
  }

  private checkDims(vector: number[]): number[] {
    if (vector.length === 0) throw this.badResponse('an embedding is empty');
    if (this.learnedDims === 0) {
      this.learnedDims = vector.length;
    } else if (vector.length !== this.learnedDims) {
      throw this.badResponse(`embedding has ${vector.length} dims, expected ${this.learnedDims}`);
    }
    return vector;
  }

  private badResponse(reason: string): EmbeddingProviderError {
    // A malformed answer is a server or configuration bug; retrying the same request will not help.
    return new EmbeddingProviderError(`${WHAT} to ${this.endpoint} returned an invalid response: ${reason}`, false);
  }
}

/** Accepts base64 float32 little-endian (the OpenAI wire format) or a plain float array. */
function decodeEmbedding(raw: unknown, fail: (reason: string) => Error): number[] {
  if (typeof raw === 'string') {
    const bytes = Buffer.from(raw, 'base64');
    if (bytes.length % 4 !== 0) throw fail('base64 embedding is not a whole number of float32 values');
    const out = new Array<number>(bytes.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
    return assertFinite(out, fail);
  }
  if (Array.isArray(raw) && raw.every((v) => typeof v === 'number')) return assertFinite(raw as number[], fail);
  throw fail('an embedding is neither base64 nor a number array');
}

function assertFinite(vector: number[], fail: (reason: string) => Error): number[] {
  for (const v of vector) if (!Number.isFinite(v)) throw fail('an embedding contains a non-finite value');
  return vector;
}
