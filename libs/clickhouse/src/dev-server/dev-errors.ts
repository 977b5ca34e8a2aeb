// Errors the endpoint raises itself (refusals, malformed requests), carrying a ClickHouse error
// code and type so the client turns them into a ClickHouseError exactly like server errors.
export class DevEndpointError extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'DevEndpointError';
  }
}

export interface ClickHouseErrorBody {
  code: number;
  /** Full `Code: <n>. DB::Exception: <message>. (<TYPE>)` text. */
  text: string;
}

const CODE_AND_TYPE = /^Code: (\d+)\. .*\(([A-Z0-9_]*[A-Z]{3}[A-Z0-9_]*)\)/s;

/**
 * Normalises anything thrown while serving a request into ClickHouse's error text. chDB's own
 * messages already have the server's `Code: N. DB::Exception: ... (TYPE)` shape and pass through;
 * others are wrapped so the client's parser still finds a code and a type.
 */
export function toClickHouseError(err: unknown): ClickHouseErrorBody {
  if (err instanceof DevEndpointError) {
    return { code: err.code, text: `Code: ${err.code}. DB::Exception: ${stripFinalDot(err.message)}. (${err.type})` };
  }
  const message = err instanceof Error ? err.message : String(err);
  const m = CODE_AND_TYPE.exec(message);
  if (m) return { code: Number(m[1]), text: message.trim() };
  const chdbCode = (err as { clickhouseCode?: unknown } | null)?.clickhouseCode;
  if (typeof chdbCode === 'number') {
    return { code: chdbCode, text: `Code: ${chdbCode}. DB::Exception: ${stripFinalDot(message)}. (UNKNOWN_EXCEPTION)` };
  }
  // chDB's typed bind errors reject a parameter value before the engine sees it.
  if ((err as { code?: unknown } | null)?.code === 'CHDB_BIND') {
    return { code: 457, text: `Code: 457. DB::Exception: ${stripFinalDot(message)}. (BAD_QUERY_PARAMETER)` };
  }
  return { code: 1002, text: `Code: 1002. DB::Exception: ${stripFinalDot(message)}. (UNKNOWN_EXCEPTION)` };
}

function stripFinalDot(s: string): string {
  return s.trim().replace(/\.$/, '');
}

// The subset of ClickHouse's HTTPHandler exception-code → status mapping Loom can meet; the client
// only cares that the status is not 2xx, but matching the server keeps logs comparable.
const STATUS_BY_CODE = new Map<number, number>([
  // 400: the request text or data cannot be parsed
  [6, 400], [26, 400], [27, 400], [36, 400], [38, 400], [41, 400], [53, 400], [62, 400], [72, 400],
  [117, 400], [130, 400], [456, 400], [457, 400],
  // 404: something named does not exist
  [46, 404], [47, 404], [50, 404], [60, 404], [63, 404], [73, 404], [81, 404], [115, 404],
  // 501: NOT_IMPLEMENTED, which this endpoint uses for what it deliberately does not emulate
  [48, 501],
]);

export function httpStatusForCode(code: number): number {
  return STATUS_BY_CODE.get(code) ?? 500;
}
