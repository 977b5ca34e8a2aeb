import { createServer, type IncomingMessage } from 'node:http';
import { HashedEmbeddingProvider } from '@loom/providers';

export interface SlowEmbeddingsServer {
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  /** Embeddings calls answered so far. */
  calls(): number;
  close(): Promise<void>;
}

const body = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });

/**
 * A loopback OpenAI-compatible `/v1/embeddings` endpoint that answers each call after `delayMs`,
 * whatever its size: a remote provider's round trip, without a network. Vectors are the hashed
 * provider's, so they are real unit vectors of the right size.
 */
export async function startSlowEmbeddingsServer(delayMs: number, dims = 384): Promise<SlowEmbeddingsServer> {
  const hashed = new HashedEmbeddingProvider(dims);
  let calls = 0;
  const server = createServer((req, res) => {
    void body(req).then(async (text) => {
      const input = (JSON.parse(text || '{}') as { input?: string | string[]; model?: string }).input ?? [];
      const texts = typeof input === 'string' ? [input] : input;
      await new Promise((r) => setTimeout(r, delayMs));
      calls += 1;
      const data = hashed.embedSync(texts).map((embedding, index) => ({ object: 'embedding', index, embedding }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: 'bench-embed', usage: { prompt_tokens: 0, total_tokens: 0 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, calls: () => calls, close: () => new Promise((r) => server.close(() => r())) };
}
