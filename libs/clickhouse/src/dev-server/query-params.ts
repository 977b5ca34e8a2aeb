// Query parameters arrive exactly as @clickhouse/client formats them for ClickHouse's HTTP
// interface (`param_<name>=<text>`), but chDB's bind API wants JS values and re-formats them:
// it TSV-escapes every string it is given (doubling backslashes, turning control characters into
// `\n`-style escapes). Handing it the wire text unchanged would therefore escape twice. These
// functions produce the value whose chDB re-encoding the engine reads back as the same value the
// real server would have read from the wire text. The declared placeholder type decides which
// reading applies: a scalar is read with TSV ("escaped") rules, while an Array/Map/Tuple is read
// as a literal whose quoted strings carry their own escapes.

/** The TSV null marker the client sends for a null/undefined parameter. */
const TSV_NULL = '\\N';

const UNESCAPE: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '0': '\0',
};

/** Wrappers that do not change how a value's text is read. */
function unwrapType(type: string): string {
  let t = type.trim();
  for (;;) {
    const m = /^(Nullable|LowCardinality)\s*\((.*)\)$/s.exec(t);
    if (!m) return t;
    t = m[2]!.trim();
  }
}

export function isCompositeType(type: string | undefined): boolean {
  if (type === undefined) return false;
  return /^(Array|Map|Tuple|Nested)\s*\(/i.test(unwrapType(type));
}

/**
 * Converts one `param_<name>` wire value into the value to give chDB's bind API.
 * `declaredType` is the type from the query's `{name:Type}` placeholder, when declared.
 */
export function toChdbBindValue(wire: string, declaredType: string | undefined): string | null {
  if (isCompositeType(declaredType)) return requoteCompositeLiteral(wire);
  if (wire === TSV_NULL) return null;
  return unescapeTsv(wire);
}

/**
 * Reads a TSV-escaped field the way ClickHouse's escaped text reader does: known escapes map to
 * their control characters, `\xHH` to that code unit, and any other escaped character to itself
 * (so `\'` and `\\` become `'` and `\`).
 */
export function unescapeTsv(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\' || i + 1 >= s.length) {
      out += c;
      continue;
    }
    const e = s[++i]!;
    if (e === 'x' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      out += String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
      continue;
    }
    out += UNESCAPE[e] ?? e;
  }
  return out;
}

/**
 * Rewrites a composite literal (`['it\'s','a\\b']`) so it contains no backslash escapes: quoted
 * strings are decoded and a quote inside them is doubled instead (`['it''s','a\b']`). chDB then
 * TSV-escapes the raw backslashes and control characters this leaves, which inside a quoted
 * string are exactly the escapes that read back as the original characters.
 */
export function requoteCompositeLiteral(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c !== "'" && c !== '"' && c !== '`') {
      out += c;
      i++;
      continue;
    }
    const quote = c;
    out += quote;
    i++;
    while (i < s.length) {
      const d = s[i]!;
      if (d === '\\' && i + 1 < s.length) {
        const e = s[i + 1]!;
        if (e === 'x' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 2, i + 4))) {
          out += String.fromCharCode(parseInt(s.slice(i + 2, i + 4), 16));
          i += 4;
          continue;
        }
        const decoded = UNESCAPE[e] ?? e;
        out += decoded === quote ? quote + quote : decoded;
        i += 2;
        continue;
      }
      if (d === quote) {
        if (s[i + 1] === quote) {
          out += quote + quote;
          i += 2;
          continue;
        }
        out += quote;
        i++;
        break;
      }
      out += d;
      i++;
    }
  }
  return out;
}

/** Builds chDB bind values for every `param_*` entry, using the query's declared types. */
export function toChdbBindParams(wire: ReadonlyMap<string, string>, declaredTypes: ReadonlyMap<string, string>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [name, value] of wire) out[name] = toChdbBindValue(value, declaredTypes.get(name));
  return out;
}
