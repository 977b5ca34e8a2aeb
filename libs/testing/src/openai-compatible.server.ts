import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HashedEmbeddingProvider } from '@loom/providers';

export interface OpenAiCompatibleServerOptions {
  /** Vectors to answer with, one per input text. Defaults to HashedEmbeddingProvider(dims) output. */
  embed?: (texts: string[]) => number[][];
  /** Dims of the default embedder (384 when absent). Ignored when `embed` is given. */
  dims?: number;
  /** HTTP status to answer every request with, until changed by setFailure(). */
  failWith?: number;
  /** Reply text for chat completions. Defaults to echoing the last message's content. */
  chat?: (messages: { role: string; content: string }[]) => string | Promise<string>;
  /**
   * Return embedding items in reverse order (their `index` fields stay correct), the way some
   * servers do, so clients can be tested for ordering by `index` rather than by position.
   */
  reverseEmbeddingOrder?: boolean;
}

export interface RecordedRequest {
  path: string;
  // Parsed JSON as sent by the client under test; tests inspect it freely.
  body: any;
  headers: IncomingHttpHeaders;
}

export interface OpenAiCompatibleServer {
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  requests: RecordedRequest[];
  setFailure(status: number | undefined): void;
  close(): Promise<void>;
}

/**
 * A loopback stand-in for an OpenAI-compatible API (embeddings + chat completions), so provider
 * code can be tested through the real `openai` SDK without a network. Every request is recorded
 * before it is answered, including the ones answered with a failure.
 */
export async function startOpenAiCompatibleServer(opts: OpenAiCompatibleServerOptions = {}): Promise<OpenAiCompatibleServer> {
  const requests: RecordedRequest[] = [];
  let failure = opts.failWith;
  const defaultEmbedder = new HashedEmbeddingProvider(opts.dims);
  const embed = opts.embed ?? ((texts: string[]) => defaultEmbedder.embedSync(texts));
  const chat = opts.chat ?? ((messages: { role: string; content: string }[]) => messages[messages.length - 1]?.content ?? '');

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      sendError(res, 500, `test server bug: ${error instanceof Error ? error.message : String(error)}`, 'server_error');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: any;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      requests.push({ path, body: raw, headers: req.headers });
      sendError(res, 400, 'request body is not JSON', 'invalid_request_error');
      return;
    }
    requests.push({ path, body, headers: req.headers });

    if (failure !== undefined) {
      // Deliberately echoes the input, as some real servers do, so tests can prove that clients
      // keep server-provided error text (and thus conversation content) out of their own errors.
      const input = body?.input ?? body?.messages;
      sendError(res, failure, `simulated failure while processing ${JSON.stringify(input)}`, failureType(failure));
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, 405, `method ${req.method} not allowed`, 'invalid_request_error');
      return;
    }
    if (path === '/v1/embeddings') return answerEmbeddings(res, body);
    if (path === '/v1/chat/completions') return answerChat(res, body);
    sendError(res, 404, `no route for ${path}`, 'invalid_request_error');
  }

  function answerEmbeddings(res: ServerResponse, body: any): void {
    const input: unknown = body?.input;
    const texts = typeof input === 'string' ? [input] : input;
    if (!Array.isArray(texts) || !texts.every((t) => typeof t === 'string')) {
      sendError(res, 400, "'input' must be a string or an array of strings", 'invalid_request_error');
      return;
    }
    const format: unknown = body?.encoding_format ?? 'float';
    if (format !== 'float' && format !== 'base64') {
      sendError(res, 400, `unsupported encoding_format ${String(format)}`, 'invalid_request_error');
      return;
    }
    const vectors = embed(texts as string[]);
    const data = vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: format === 'base64' ? toBase64Float32(vector) : vector,
    }));
    if (opts.reverseEmbeddingOrder) data.reverse();
    const tokens = (texts as string[]).reduce((n, t) => n + countTokens(t), 0);
    sendJson(res, 200, {
      object: 'list',
      data,
      model: body?.model ?? 'unknown',
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  async function answerChat(res: ServerResponse, body: any): Promise<void> {
    const messages: unknown = body?.messages;
    if (!Array.isArray(messages)) {
      sendError(res, 400, "'messages' must be an array", 'invalid_request_error');
      return;
    }
    const normalized = messages.map((m: { role?: unknown; content?: unknown }) => ({
      role: String(m?.role ?? ''),
      content: typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? ''),
    }));
    const content = await chat(normalized);
    const promptTokens = normalized.reduce((n, m) => n + countTokens(m.content), 0);
    const completionTokens = countTokens(content);
    sendJson(res, 200, {
      id: `chatcmpl-test-${requests.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body?.model ?? 'unknown',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setFailure(status: number | undefined): void {
      failure = status;
    },
    close(): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // The SDK's fetch keeps connections alive; without this, close() waits for them to time out.
        server.closeAllConnections();
      });
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The OpenAI wire format for encoding_format=base64: float32, little-endian, concatenated. */
function toBase64Float32(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString('base64');
}

function countTokens(text: string): number {
  return text.split(/\s+/).filter((t) => t.length > 0).length;
}

function failureType(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function sendError(res: ServerResponse, status: number, message: string, type: string): void {
  sendJson(res, status, { error: { message, type, code: type, param: null } });
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
