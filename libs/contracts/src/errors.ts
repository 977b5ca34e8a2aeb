/** Error codes a caller can see, and the HTTP status each one maps to. */
export const ErrorStatus = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  unknown_op: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  /** The deployment lacks something the op needs (conversation.compact without an LLM). */
  not_configured: 501,
  unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ErrorStatus;

export interface FieldError {
  field: string;
  message: string;
}

/** The one JSON error shape every caller sees. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; fields?: FieldError[]; correlation_id?: string };
}

/**
 * The one error type of Loom. Services throw it; the gateway's filter maps `code` to a status.
 * `retryable` tells clients (and workers) whether sending the same request again is safe and useful.
 */
export class LoomError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly fields?: FieldError[];

  constructor(
    code: ErrorCode,
    message: string,
    options: { retryable?: boolean; fields?: FieldError[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LoomError';
    this.code = code;
    this.retryable = options.retryable ?? code === 'unavailable';
    if (options.fields) this.fields = options.fields;
  }

  get status(): number {
    return ErrorStatus[this.code];
  }

  static isLoomError(value: unknown): value is LoomError {
    return value instanceof LoomError || (value instanceof Error && value.name === 'LoomError' && 'code' in value);
  }
}
