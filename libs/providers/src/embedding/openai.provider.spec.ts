import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from '../../../testing/src/openai-compatible.server';
import { EmbeddingProviderError } from './embedding.errors';
import { createEmbeddingProvider } from './embedding.provider';
import { HashedEmbeddingProvider } from './hashed.provider';
import { OPENAI_MAX_INPUTS_PER_REQUEST, OpenAiEmbeddingProvider } from './openai.provider';

const SECRET_TEXT = 'my bank PIN is 4921 and the vault root token is s.XyZ';
const API_KEY = 'sk-test-never-print-me';

async function captureError(promise: Promise<unknown>): Promise<EmbeddingProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(EmbeddingProviderError);
    return error as EmbeddingProviderError;
  }
  throw new Error('expected the promise to reject');
}

function expectNoLeak(error: Error): void {
  const everything = `${error.message}\n${error.stack ?? ''}`;
  expect(everything).not.toContain(SECRET_TEXT);
  expect(everything).not.toContain('4921');
  expect(everything).not.toContain(API_KEY);
}

describe('OpenAiEmbeddingProvider against the loopback OpenAI-compatible server', () => {
  let server: OpenAiCompatibleServer;

  beforeEach(async () => {
    server = await startOpenAiCompatibleServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('returns the server-produced vectors, normalised, via the SDK default base64 encoding', async () => {
    const provider = new OpenAiEmbeddingProvider({ baseUrl: server.baseUrl, model: 'text-embedding-test', apiKey: API_KEY });
    const texts = ['rotate the database credentials', 'the cat sat on the mat', 'deploy to staging'];
    const vectors = await provider.embed(texts);

    const expected = new HashedEmbeddingProvider().embedSync(texts);
    expect(vectors).toHaveLength(3);
    vectors.forEach((v, i) => {
      expect(v).toHaveLength(384);
      // The wire format is float32, so compare at float32 precision.
      v.forEach((x, j) => expect(x).toBeCloseTo((expected[i] as number[])[j] as number, 6));
    });

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.path).toBe('/v1/embeddings');
    expect(request?.body).toEqual({ model: 'text-embedding-test', input: texts, encoding_format: 'base64' });
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('L2-normalises vectors the server returns unnormalised, and learns dims from the first response', async () => {
    await server.close();
    server = await startOpenAiCompatibleServer({ embed: (texts) => texts.map((_, i) => [3 * (i + 1), 4 * (i + 1), 0]) });
    const provider = new OpenAiEmbeddingProvider({ baseUrl: server.baseUrl, model: 'm' });
    expect(provider.dims).toBe(0);
    const vectors = await provider.embed(['a', 'b']);
    expect(provider.dims).toBe(3);
    for (const v of vectors) {
      expect(v[0]).toBeCloseTo(0.6, 6);
      expect(v[1]).toBeCloseTo(0.8, 6);
      expect(v[2]).toBe(0);
    }
  });

  it('sends the placeholder key when none is configured, since the SDK insists on one', async () => {
    const provider = new OpenAiEmbeddingProvider({ baseUrl: server.baseUrl, model: 'm' });
    await provider.embed(['x']);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer unused');
  });

  it('orders vectors by the index field, not by response position', async () => {
    await server.close();
    server = await startOpenAiCompatibleServer({
      reverseEmbeddingOrder: true,
      embed: (texts) => texts.map((_, i) => Array.from({ length: 4 }, (_, j) => (j === i % 4 ? 1 : 0))),
    });
    const provider = new OpenAiEmbeddingProvider({ baseUrl: server.baseUrl, model: 'm' });
    const vectors = await provider.embed(['first', 'second', 'third']);
    expect(vectors).toEqual([
      [1, 0, 0, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
    ]);
  });

  it('accepts servers that ignore encoding_format and answer with float arrays', async () => {
    await server.close();
    const floatServer = await startFloatOnlyServer([[0, 2, 0]]);
    try {
      const provider = new OpenAiEmbeddingProvider({ baseUrl: floatServer.baseUrl, model: 'm' });
      expect(await provider.embed(['x'])).toEqual([[0, 1, 0]]);
    } finally {
      await floatServer.close();
    }
    server = await startOpenAiCompatibleServer();
  });

  it('splits large batches into sequential requests and keeps the overall order', async () => {
    const provider = new OpenAiEmbeddingProvider({ baseUrl: server.baseUrl, model: 'm' });
    const texts = Array.from({ length: OPENAI_MAX_INPUTS_PER_REQUEST * 2 + 5 }, (_, i) => `text number ${i}`);
    const vectors = await provider.embed(texts);
    expect(server.requests.map((r) => (r.body.input as string[]).length)).toEqual([
      OPENAI_MAX_INPUTS_PER_REQUEST,
      OPENAI_MAX_INPUTS_PER_REQUEST,
      5,
    ]);
    const [last] = new HashedEmbeddingProvider().embedSync([texts[texts.length - 1] as string]);
    (vectors[vectors.length - 1] as number[]).forEach((x, j) => expect(x).toBeCloseTo((last as number[])[j] as number, 6));
  });

  it('makes no request for an empty batch', async () => {
    const provider = new OpenAiEmbeddingProvider({ baseUrl: server.baseUrl, model: 'm' });
    expect(await provider.embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects a response whose dims differ from the configured dims', async () => {
    const provider = new OpenAiEmbeddingProvider({ baseUrl: server.baseUrl, model: 'm', dims: 1536 });
    expect(provider.dims).toBe(1536);
    const error = await captureError(provider.embed(['x']));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/384 dims, expected 1536/);
  });

  it.each([
    [500, true],
    [503, true],
    [429, true],
    [400, false],
    [401, false],
    [404, false],
  ])('maps HTTP %i to an EmbeddingProviderError with retryable=%s, without leaking input or key', async (status, retryable) => {
    server.setFailure(status);
    const provider = new OpenAiEmbeddingProvider({ baseUrl: server.baseUrl, model: 'm', apiKey: API_KEY });
    const error = await captureError(provider.embed([SECRET_TEXT]));
    expect(error.retryable).toBe(retryable);
    expect(error.message).toContain(`HTTP ${status}`);
    expectNoLeak(error);
    // maxRetries: 0 — retrying is the caller's decision.
    expect(server.requests).toHaveLength(1);
  });

  it('recovers once the server stops failing', async () => {
    const provider = new OpenAiEmbeddingProvider({ baseUrl: server.baseUrl, model: 'm' });
    server.setFailure(503);
    await captureError(provider.embed(['x']));
    server.setFailure(undefined);
    expect(await provider.embed(['x'])).toHaveLength(1);
  });

  it('maps connection refused to a retryable error', async () => {
    const closed = await startOpenAiCompatibleServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const provider = new OpenAiEmbeddingProvider({ baseUrl, model: 'm', apiKey: API_KEY });
    const error = await captureError(provider.embed([SECRET_TEXT]));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/connection error/);
    expectNoLeak(error);
  });

  it('maps a timeout to a retryable error', async () => {
    const silent = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const provider = new OpenAiEmbeddingProvider({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 200 });
      const error = await captureError(provider.embed([SECRET_TEXT]));
      expect(error.retryable).toBe(true);
      // Outside jest this reads "timed out". Inside jest's VM sandbox the SDK cannot recognise the
      // outer realm's AbortError (instanceof fails across realms) and reports a connection error;
      // both are retryable, which is what callers act on.
      expect(error.message).toMatch(/timed out|connection error/);
      expectNoLeak(error);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('keeps credentials in the base URL out of error messages', async () => {
    server.setFailure(500);
    const url = new URL(server.baseUrl);
    const provider = new OpenAiEmbeddingProvider({
      baseUrl: `http://user:${API_KEY}@${url.host}${url.pathname}?api-key=${API_KEY}`,
      model: 'm',
    });
    const error = await captureError(provider.embed(['x']));
    expectNoLeak(error);
    expect(error.message).toContain(url.host);
  });
});

describe('createEmbeddingProvider', () => {
  it('builds each provider kind', () => {
    expect(createEmbeddingProvider({ provider: 'hashed' }).model).toBe('hashed-v1-384');
    expect(createEmbeddingProvider({ provider: 'hashed', dims: 512 }).dims).toBe(512);
    const openai = createEmbeddingProvider({ provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1', model: 'e5', dims: 768 });
    expect([openai.name, openai.model, openai.dims]).toEqual(['openai', 'e5', 768]);
    const use = createEmbeddingProvider({ provider: 'use' });
    expect([use.name, use.model, use.dims]).toEqual(['use', 'use-lite-512', 512]);
  });

  it('rejects incomplete or contradictory configuration', () => {
    expect(() => createEmbeddingProvider({ provider: 'openai', model: 'm' })).toThrow(EmbeddingProviderError);
    expect(() => createEmbeddingProvider({ provider: 'openai', baseUrl: 'http://x/v1' })).toThrow(/baseUrl and model/);
    expect(() => createEmbeddingProvider({ provider: 'use', dims: 384 })).toThrow(/512/);
    expect(() => createEmbeddingProvider({ provider: 'nope' as 'hashed' })).toThrow(/Unknown/);
  });
});

/** A server that, like some real ones, ignores encoding_format and always answers with floats. */
async function startFloatOnlyServer(vectors: number[][]): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = JSON.stringify({
        object: 'list',
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        model: 'm',
        usage: { prompt_tokens: 1, total_tokens: 1 },
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
