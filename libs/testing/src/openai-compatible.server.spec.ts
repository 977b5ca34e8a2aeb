import { HashedEmbeddingProvider } from '@loom/providers';
import { startOpenAiCompatibleServer, type OpenAiCompatibleServer } from './openai-compatible.server';

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

function decodeBase64Float32(s: string): number[] {
  const bytes = Buffer.from(s, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

describe('startOpenAiCompatibleServer', () => {
  let server: OpenAiCompatibleServer;

  afterEach(async () => {
    await server.close();
  });

  it('listens on loopback with a /v1 base URL', async () => {
    server = await startOpenAiCompatibleServer();
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('answers embeddings as float arrays with the hashed vectors by default', async () => {
    server = await startOpenAiCompatibleServer({ dims: 64 });
    const { status, json } = await post(`${server.baseUrl}/embeddings`, { model: 'm', input: ['a b c', 'd e'], encoding_format: 'float' });
    expect(status).toBe(200);
    expect(json.object).toBe('list');
    expect(json.model).toBe('m');
    expect(json.data.map((d: { index: number }) => d.index)).toEqual([0, 1]);
    expect(json.data[0].embedding).toEqual(new HashedEmbeddingProvider(64).embedSync(['a b c'])[0]);
    expect(json.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
  });

  it('treats a missing encoding_format as float and a single string input as one text', async () => {
    server = await startOpenAiCompatibleServer({ embed: (texts) => texts.map(() => [1, 2]) });
    const { json } = await post(`${server.baseUrl}/embeddings`, { model: 'm', input: 'solo' });
    expect(json.data).toEqual([{ object: 'embedding', index: 0, embedding: [1, 2] }]);
  });

  it('encodes base64 as little-endian float32', async () => {
    server = await startOpenAiCompatibleServer({ embed: (texts) => texts.map((_, i) => [0.5, -1.25, i]) });
    const { json } = await post(`${server.baseUrl}/embeddings`, { model: 'm', input: ['x', 'y'], encoding_format: 'base64' });
    expect(typeof json.data[1].embedding).toBe('string');
    expect(decodeBase64Float32(json.data[1].embedding)).toEqual([0.5, -1.25, 1]);
  });

  it('can return embedding items in reverse order with correct indexes', async () => {
    server = await startOpenAiCompatibleServer({ reverseEmbeddingOrder: true, embed: (texts) => texts.map((_, i) => [i]) });
    const { json } = await post(`${server.baseUrl}/embeddings`, { model: 'm', input: ['x', 'y', 'z'], encoding_format: 'float' });
    expect(json.data.map((d: { index: number; embedding: number[] }) => [d.index, d.embedding[0]])).toEqual([
      [2, 2],
      [1, 1],
      [0, 0],
    ]);
  });

  it('answers chat completions, echoing the last message by default', async () => {
    server = await startOpenAiCompatibleServer();
    const { status, json } = await post(`${server.baseUrl}/chat/completions`, {
      model: 'c',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there' },
      ],
    });
    expect(status).toBe(200);
    expect(json.choices[0].message).toEqual({ role: 'assistant', content: 'hello there' });
    expect(json.choices[0].finish_reason).toBe('stop');
    expect(json.usage).toEqual({ prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 });
  });

  it('records every request, including failed ones, and fails on demand', async () => {
    server = await startOpenAiCompatibleServer({ failWith: 503 });
    const failed = await post(`${server.baseUrl}/embeddings`, { model: 'm', input: ['x'] });
    expect(failed.status).toBe(503);
    expect(failed.json.error.type).toBe('server_error');
    server.setFailure(undefined);
    expect((await post(`${server.baseUrl}/embeddings`, { model: 'm', input: ['x'] })).status).toBe(200);
    server.setFailure(429);
    expect((await post(`${server.baseUrl}/chat/completions`, { model: 'c', messages: [] })).status).toBe(429);
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1/embeddings', '/v1/chat/completions']);
    expect(server.requests[0]?.body).toEqual({ model: 'm', input: ['x'] });
  });

  it('rejects malformed requests and unknown routes', async () => {
    server = await startOpenAiCompatibleServer();
    expect((await post(`${server.baseUrl}/embeddings`, { model: 'm', input: [1, 2] })).status).toBe(400);
    expect((await post(`${server.baseUrl}/embeddings`, { model: 'm', input: ['x'], encoding_format: 'int8' })).status).toBe(400);
    expect((await post(`${server.baseUrl}/chat/completions`, { model: 'c' })).status).toBe(400);
    expect((await post(`${server.baseUrl}/models`, {})).status).toBe(404);
    const notJson = await fetch(`${server.baseUrl}/embeddings`, { method: 'POST', body: '{nope' });
    expect(notJson.status).toBe(400);
  });
});
