import { OP_NAMES, type OpName, type OpRequests, type OpResponses } from './wire.generated';

/** An error answer of the Loom API, with the spec's code and the HTTP status. */
export class LoomApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Array<{ field: string; message: string }> = [],
    /** The id the server logged the call under; quote it when reporting a problem. */
    readonly correlationId?: string,
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

/**
 * `POST /v1/ops/<op>` with a JSON body, one op per call, typed by the op. Its own state is in
 * #private fields: the op areas set on it by createLoomClient (`token`, `run`, ...) cannot clash.
 */
export class OpsClient {
  readonly #baseUrl: string;
  readonly #token: string | undefined;
  readonly #timeoutMs: number;

  constructor(options: ClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    // `process` is Node's; in a browser the token must be given.
    this.#token = options.token ?? (typeof process === 'undefined' ? undefined : process.env['LOOM_TOKEN']);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Calls `op` with `body`; answers what the op answers, or throws LoomApiError. */
  async call<O extends OpName>(op: O, body: OpRequests[O]): Promise<OpResponses[O]> {
    const response = await fetch(`${this.#baseUrl}/v1/ops/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.#token ? { authorization: `Bearer ${this.#token}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
    const answer = (await response.json().catch(() => ({}))) as OpResponses[O] & { error?: { code: string; message: string; fields?: Array<{ field: string; message: string }>; correlation_id?: string } };
    if (!response.ok) {
      throw new LoomApiError(response.status, answer.error?.code ?? 'unknown', answer.error?.message ?? `HTTP ${response.status}`, answer.error?.fields, answer.error?.correlation_id);
    }
    return answer;
  }
}

/** The area of an op: `conversation` of `conversation.append`. */
export type OpArea = OpName extends `${infer A}.${string}` ? A : never;

/** One method per op: the body may be left out when every field of it is optional. */
export type OpMethod<O extends OpName> = Partial<OpRequests[O]> extends OpRequests[O] ? (body?: OpRequests[O]) => Promise<OpResponses[O]> : (body: OpRequests[O]) => Promise<OpResponses[O]>;

/** The ops of each area as methods: `client.conversation.append({...})`, `client.session.brief_get({...})`. */
export type OpMethods = { readonly [A in OpArea]: { readonly [O in OpName as O extends `${A}.${infer M}` ? M : never]: OpMethod<O> } };

export type LoomClient = OpsClient & OpMethods;

/** A client with a typed method for every op (from OP_NAMES, generated from the contracts). */
export function createLoomClient(options: ClientOptions): LoomClient {
  const client = new OpsClient(options);
  const areas: Record<string, Record<string, (body?: object) => Promise<unknown>>> = {};
  for (const op of OP_NAMES) {
    const [area, method] = op.split('.') as [string, string];
    if (area in client) throw new Error(`the op area ${area} would hide OpsClient.${area}`);
    areas[area] ??= {};
    areas[area][method] = (body = {}) => client.call(op, body as OpRequests[typeof op]);
  }
  // The methods are built from the same list the types are: each area and method exists.
  return Object.assign(client, areas) as unknown as LoomClient;
}
