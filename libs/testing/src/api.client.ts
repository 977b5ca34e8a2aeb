/** A plain HTTP client for Loom's ops, as any caller would use them. */
export class LoomApi {
  constructor(
    readonly url: string,
    readonly token: string,
  ) {}

  withToken(token: string): LoomApi {
    return new LoomApi(this.url, token);
  }

  async call<T = any>(op: string, body: unknown = {}, options: { token?: string | null; rawBody?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: T }> {
    const token = options.token === undefined ? this.token : options.token;
    const response = await fetch(`${this.url}/v1/ops/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...options.headers },
      body: options.rawBody ?? JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** Calls an op that must succeed, and returns its body. */
  async ok<T = any>(op: string, body: unknown = {}): Promise<T> {
    const result = await this.call<T>(op, body);
    if (result.status !== 200) throw new Error(`${op} answered ${result.status}: ${JSON.stringify(result.body)}`);
    return result.body;
  }

  async get(path: string): Promise<{ status: number; text: string }> {
    const response = await fetch(`${this.url}${path}`);
    return { status: response.status, text: await response.text() };
  }
}
