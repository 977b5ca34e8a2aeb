/** One op over HTTP with a deadline: the bench's lean client and the tests' fetch client both fit. */
export type OpCall = (op: string, body: unknown, timeoutMs?: number) => Promise<{ status: number; body: any }>;

/** An OpCall over fetch, with a deadline so that a hung server shows up as an error, not a hung test. */
export function fetchOpCall(url: string, token: string, defaultTimeoutMs = 30_000): OpCall {
  return async (op, body, timeoutMs = defaultTimeoutMs) => {
    const response = await fetch(`${url}/v1/ops/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep the text */
    }
    return { status: response.status, body: parsed };
  };
}

/** A short name for a failed call: the error code (ECONNREFUSED, ...) or the timeout. */
export function errorLabel(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const code = (error as { code?: string }).code ?? cause?.code;
    if (code) return code;
    if (error.name === 'TimeoutError' || /timed out/i.test(error.message)) return 'timeout';
    return error.message.slice(0, 60);
  }
  return String(error).slice(0, 60);
}
