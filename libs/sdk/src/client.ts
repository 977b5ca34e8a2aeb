/** An error answer of the Loom API, with the spec's code and the HTTP status. */
export class LoomApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Array<{ field: string; message: string }> = [],
  ) {
    super(message);
    this.name = 'LoomApiError';
  }
}

export interface ClientOptions {
  /** e.g. http://localhost:7777 */
  baseUrl: string;
  /** A Loom token (`loom token create`); LOOM_TOKEN when absent. */
  token?: string;
  /** Per-call timeout. */
  timeoutMs?: number;
}

/** `POST /v1/ops/<op>` with a JSON body, one op per call. */
export class OpsClient {
  private readonly baseUrl: string;
  private readonly token: string | undefined;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token ?? process.env['LOOM_TOKEN'];
  }

  async call<T>(op: string, body: Record<string, unknown>): Promise<T> {
    const response = await fetch(`${this.baseUrl}/v1/ops/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
    });
    const answer = (await response.json().catch(() => ({}))) as T & { error?: { code: string; message: string; fields?: Array<{ field: string; message: string }> } };
    if (!response.ok) {
      throw new LoomApiError(response.status, answer.error?.code ?? 'unknown', answer.error?.message ?? `HTTP ${response.status}`, answer.error?.fields);
    }
    return answer;
  }
}
