import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAI,
} from 'openai';

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface OpenAiClientOptions {
  baseUrl: string;
  apiKey?: string;
  timeoutMs?: number;
}

/**
 * Builds an SDK client whose behaviour depends only on what Loom passes in. Every option the SDK
 * would otherwise fill from OPENAI_* environment variables is set explicitly, so an operator's
 * shell (e.g. an OPENAI_ORG_ID meant for another tool) cannot add headers to requests sent to a
 * self-hosted endpoint, and OPENAI_LOG=debug cannot dump conversation text into logs.
 * Retries are the caller's decision (errors carry `retryable`), hence maxRetries: 0.
 */
export function createOpenAiClient(options: OpenAiClientOptions): OpenAI {
  return new OpenAI({
    baseURL: options.baseUrl,
    // The SDK refuses to construct without a key; keyless local servers ignore the header.
    apiKey: options.apiKey || 'unused',
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: 0,
    logLevel: 'off',
  });
}

export interface MappedError {
  message: string;
  retryable: boolean;
  cause?: unknown;
}

const SAFE_TOKEN = /^[\w.:-]{1,64}$/;

/** Host only: userinfo, path and query of a base URL can carry credentials (e.g. ?api-key=). */
export function describeEndpoint(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return '(invalid base URL)';
  }
}

/**
 * Translates SDK errors into a message that is safe to log. The server's own error text is
 * dropped on purpose: some servers echo the offending input back, and inputs are conversation
 * content. Only the status and short machine-readable code/type survive.
 */
export function mapOpenAiError(error: unknown, what: string, endpoint: string): MappedError {
  if (error instanceof APIConnectionTimeoutError) {
    return { message: `${what} to ${endpoint} timed out`, retryable: true, cause: error };
  }
  if (error instanceof APIConnectionError) {
    // The cause chain holds only network-level details (e.g. ECONNREFUSED), never request content.
    return { message: `${what} to ${endpoint} failed: connection error${networkCode(error)}`, retryable: true, cause: error };
  }
  if (error instanceof APIUserAbortError) {
    return { message: `${what} to ${endpoint} was aborted`, retryable: false };
  }
  if (error instanceof APIError) {
    const status = error.status;
    const details = [error.code, error.type]
      .filter((v): v is string => typeof v === 'string' && SAFE_TOKEN.test(v))
      .filter((v, i, all) => all.indexOf(v) === i);
    const detail = details.length > 0 ? ` (${details.join(', ')})` : '';
    const requestId = error.requestID && SAFE_TOKEN.test(error.requestID) ? ` [request id ${error.requestID}]` : '';
    return {
      message: `${what} to ${endpoint} failed: HTTP ${status ?? 'unknown'}${detail}${requestId}`,
      retryable: isRetryableStatus(status),
    };
  }
  const name = error instanceof Error ? error.name : typeof error;
  return { message: `${what} to ${endpoint} failed: unexpected ${name}`, retryable: false };
}

function isRetryableStatus(status: number | undefined): boolean {
  if (status === undefined) return true;
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

function networkCode(error: Error): string {
  let current: unknown = error.cause;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string' && SAFE_TOKEN.test(code)) return ` (${code})`;
    current = current.cause;
  }
  return '';
}
