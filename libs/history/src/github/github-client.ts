/**
 * A small client of GitHub's REST API for the code-history plane's GitHub source: GET only,
 * pages followed by the Link header, and rate limits obeyed as GitHub documents them (primary:
 * 403/429 with x-ratelimit-remaining 0, wait until x-ratelimit-reset; secondary: 403/429 with
 * retry-after, wait that long, else at least a minute, longer each time). The token goes in the
 * Authorization header only, and only to the API's own origin; no message this client writes
 * holds it.
 */

export type GithubFailureKind = 'unauthorized' | 'forbidden' | 'not_found' | 'unreachable' | 'rate_limited' | 'http';

export class GithubError extends Error {
  constructor(
    readonly kind: GithubFailureKind,
    message: string,
    readonly status?: number,
    /** For `rate_limited`: when GitHub takes requests again. */
    readonly resumeAt?: Date,
  ) {
    super(message);
    this.name = 'GithubError';
  }
}

export interface GithubClientOptions {
  /** `https://api.github.com`, or a GitHub Enterprise Server's `https://host/api/v3`. */
  apiUrl: string;
  token?: string;
  /** Told before each rate-limit wait: until when, and why. */
  onPause?: (until: Date, reason: string) => Promise<void> | void;
  /** Told when a wait is over and requests go on. */
  onResume?: () => Promise<void> | void;
  /** Aborts waits and requests (the gateway is closing). */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The longest wait taken in process; a longer one fails as `rate_limited` (a rerun after resumeAt goes on). */
  maxWaitMs?: number;
  /** Consecutive secondary-limit refusals of one request before giving up. */
  maxSecondaryRetries?: number;
}

export interface GithubPage<T> {
  items: T[];
  next: string | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_WAIT_MS = 65 * 60_000;
const SECONDARY_FALLBACK_MS = 60_000;
const SERVER_ERROR_RETRIES = 2;

export class GithubClient {
  /** Requests sent (each retry counts). */
  requests = 0;
  private readonly base: URL;
  /** A success that spent the last request of the window: wait before the next one. */
  private blockedUntil = 0;

  constructor(private readonly options: GithubClientOptions) {
    this.base = new URL(options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`);
  }

  get apiUrl(): string {
    return this.base.toString().replace(/\/$/, '');
  }

  /** One resource (`repos/o/r`), as JSON. */
  async get<T>(path: string, query: Record<string, string> = {}): Promise<T> {
    const { body } = await this.request(this.url(path, query));
    return body as T;
  }

  /** Every page of a list, one at a time (the caller writes each page before asking for the next). */
  async *pages<T>(path: string, query: Record<string, string> = {}): AsyncGenerator<GithubPage<T>> {
    let url: URL | undefined = this.url(path, { per_page: '100', ...query });
    while (url) {
      const { body, headers } = await this.request(url);
      if (!Array.isArray(body)) throw new GithubError('http', `GitHub answered ${url.pathname} with something other than a list`);
      const next = nextLink(headers.get('link'));
      // The token goes to the API's origin only, whatever a Link header names.
      url = next && new URL(next).origin === this.base.origin ? new URL(next) : undefined;
      yield { items: body as T[], next: url?.toString() };
    }
  }

  private url(path: string, query: Record<string, string>): URL {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    return url;
  }

  private async request(url: URL): Promise<{ body: unknown; headers: Headers }> {
    let secondary = 0;
    let serverErrors = 0;
    let redirects = 0;
    for (;;) {
      if (this.blockedUntil > Date.now()) await this.wait(new Date(this.blockedUntil), 'the hourly request budget is spent (x-ratelimit-remaining: 0)');
      const response = await this.send(url);
      const remaining = response.headers.get('x-ratelimit-remaining');
      const reset = resetOf(response.headers);
      if (response.ok) {
        this.blockedUntil = remaining === '0' && reset ? reset.getTime() : 0;
        const body: unknown = await response.json().catch(() => {
          throw new GithubError('http', `${this.apiUrl} answered ${url.pathname} with something other than JSON: it is not GitHub's REST API`);
        });
        return { body, headers: response.headers };
      }
      // A renamed or moved repository answers with a redirect: followed on the API's own origin only.
      const location = response.headers.get('location');
      if ([301, 302, 307, 308].includes(response.status) && location && redirects++ < 5) {
        const next = new URL(location, url);
        if (next.origin !== this.base.origin) throw new GithubError('http', `GitHub redirected ${url.pathname} to another server (${next.origin}); the token is not sent there`, response.status);
        url = next;
        continue;
      }
      const message = await messageOf(response);
      if (message === undefined && response.status === 404) throw new GithubError('http', `${this.apiUrl} answered ${url.pathname} with 404 and no JSON: it is not GitHub's REST API`, 404);
      if (response.status === 401) {
        throw new GithubError('unauthorized', `GitHub refused the token (401 ${quote(message) || 'Bad credentials'}): it is revoked, expired or mistyped`, 401);
      }
      if (response.status === 403 || response.status === 429) {
        const header = response.headers.get('retry-after');
        const retryAfter = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
        if (retryAfter !== undefined) {
          const until = new Date(Date.now() + retryAfter * 1000);
          if (++secondary > (this.options.maxSecondaryRetries ?? 5)) throw this.limited(until, 'GitHub keeps refusing with its secondary rate limit');
          await this.wait(until, `GitHub's secondary rate limit (${response.status}, retry-after: ${retryAfter} s)`);
          continue;
        }
        if (remaining === '0' && reset) {
          await this.wait(reset, `GitHub's rate limit is spent (${response.status}, x-ratelimit-remaining: 0)`);
          continue;
        }
        if (response.status === 429 || /rate limit/i.test(message ?? '')) {
          const until = new Date(Date.now() + SECONDARY_FALLBACK_MS * 2 ** secondary);
          if (++secondary > (this.options.maxSecondaryRetries ?? 5)) throw this.limited(until, 'GitHub keeps refusing with its secondary rate limit');
          await this.wait(until, `GitHub's secondary rate limit (${response.status}, no retry-after: waiting ${2 ** (secondary - 1)} min)`);
          continue;
        }
        throw new GithubError('forbidden', `GitHub refused access to ${url.pathname} (403 ${quote(message) || 'Forbidden'})`, 403);
      }
      if (response.status === 404) throw new GithubError('not_found', `GitHub has no ${url.pathname} (404), or the token cannot see it`, 404);
      if (response.status >= 500 && serverErrors++ < SERVER_ERROR_RETRIES) {
        await this.sleep(1000 * 2 ** serverErrors);
        continue;
      }
      throw new GithubError('http', `GitHub answered ${url.pathname} with ${response.status}${quote(message) ? ` (${quote(message)})` : ''}`, response.status);
    }
  }

  private async send(url: URL): Promise<Response> {
    this.requests += 1;
    const headers: Record<string, string> = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'loom-code-history' };
    if (this.options.token) headers['authorization'] = `Bearer ${this.options.token}`;
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      return await fetch(url, { headers, signal: this.options.signal ? AbortSignal.any([this.options.signal, timeout]) : timeout, redirect: 'manual' });
    } catch (error) {
      if (this.options.signal?.aborted) throw new GithubError('unreachable', 'the sync was stopped (the gateway is closing)');
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = timeout.aborted ? `no answer within ${(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s` : (cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error)));
      throw new GithubError('unreachable', `could not reach GitHub's API at ${this.apiUrl}: ${why}`);
    }
  }

  private limited(until: Date, why: string): GithubError {
    return new GithubError('rate_limited', `${why}; it takes requests again at ${until.toISOString()}`, 403, until);
  }

  private async wait(until: Date, reason: string): Promise<void> {
    const ms = Math.max(0, until.getTime() - Date.now());
    if (ms > (this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS)) throw this.limited(until, reason);
    await this.options.onPause?.(until, reason);
    await this.sleep(ms);
    this.blockedUntil = 0;
    await this.options.onResume?.();
  }

  private sleep(ms: number): Promise<void> {
    const signal = this.options.signal;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new GithubError('unreachable', 'the sync was stopped (the gateway is closing)'));
      const timer = setTimeout(done, ms);
      function done(): void {
        signal?.removeEventListener('abort', aborted);
        resolve();
      }
      function aborted(): void {
        clearTimeout(timer);
        reject(new GithubError('unreachable', 'the sync was stopped (the gateway is closing)'));
      }
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }
}

/** The `rel="next"` URL of a Link header (RFC 8288, as GitHub writes it). */
export function nextLink(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*(.*)/.exec(part.trim());
    if (m && /\brel="?([^"]*\s)?next(\s[^"]*)?"?/.test(m[2] ?? '')) return m[1];
  }
  return undefined;
}

function resetOf(headers: Headers): Date | undefined {
  const reset = Number(headers.get('x-ratelimit-reset'));
  return Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000) : undefined;
}

/** The longest piece of a remote error message quoted (GitHub's own are short: "Bad credentials", "Not Found"). */
const QUOTED_MESSAGE_CHARS = 80;

/** GitHub's error message (`{"message": …}`), to classify the answer by; undefined when it is not JSON (not GitHub). Never quoted whole: see quote. */
async function messageOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.json()) as { message?: unknown };
    return typeof body?.message === 'string' ? body.message.trim().slice(0, 1_000) : '';
  } catch {
    return undefined;
  }
}

/**
 * What an error quotes of a server's message: only one that reads like GitHub's own (one short
 * line of printable ASCII), else nothing. An error answered to a caller never carries more than
 * a few words of what a server sent (ADR 0031).
 */
export function quote(message: string | undefined): string {
  return message !== undefined && message.length <= QUOTED_MESSAGE_CHARS && /^[\x20-\x7e]*$/.test(message) ? message : '';
}
