// A deliberately small ClickHouse SQL scanner. The dev endpoint never parses SQL for meaning —
// chDB does that — but it has to know a few structural facts the real HTTP handler gets from
// its parser: where one statement ends (chDB happily runs `a; b`, the HTTP interface refuses),
// which kind of statement it is (to decide where a per-query SETTINGS clause can go without
// changing meaning), where an INSERT's inline data starts (data must never be scanned as SQL),
// and which `{name:Type}` placeholders the query declares (parameter values are re-encoded by
// declared type). Anything it cannot classify is left for the engine to judge.

export interface Token {
  kind: 'word' | 'quoted' | 'string' | 'number' | 'punct';
  /** Source text of the token (quotes included for strings and quoted identifiers). */
  text: string;
  start: number;
  end: number;
  /** Bracket depth ((, [, {) at which the token starts. */
  depth: number;
}

export interface InsertShape {
  /** Target as written (`db.t`, `` `db`.`t` ``, `FUNCTION f(...)`); undefined when unrecognised. */
  table?: string;
  /** Column list when it is a plain identifier list. */
  columns?: string[];
  /** True when the column list is anything other than plain identifiers (e.g. `* EXCEPT (...)`). */
  complexColumns: boolean;
  /** Existing SETTINGS keyword in the INSERT header, if any. */
  settingsKeyword?: Token;
  /** The keyword that introduces the rows: FORMAT, VALUES, SELECT, WITH, FROM (INFILE) or `(`. */
  source?: Token;
  /** Format name when source is FORMAT. */
  format?: string;
  /** Offset where inline data starts (after `FORMAT Name` or at `VALUES`), undefined for INSERT SELECT. */
  dataStart?: number;
}

export interface StatementShape {
  /** Leading keyword upper-cased (`SELECT`, `INSERT`, `CREATE`, ...); `(` counts as SELECT; '' for an empty query. */
  kind: string;
  /** Second keyword upper-cased, for distinctions such as CREATE TEMPORARY. */
  secondWord: string;
  /**
   * The statement without a trailing `;` or trailing comments — for an INSERT with inline data
   * the whole text is kept, since everything after the data start belongs to the data.
   */
  statement: string;
  /** More than one statement (chDB would run all of them; ClickHouse's HTTP interface refuses). */
  multiStatement: boolean;
  /** Trailing top-level `FORMAT Name` of a non-INSERT statement. */
  format?: { name: string; keyword: Token };
  /** A top-level SETTINGS clause follows the trailing FORMAT clause. */
  settingsAfterFormat: boolean;
  /** Declared parameter types, `{name:Type}` → name → Type (first declaration wins). */
  paramTypes: Map<string, string>;
  insert?: InsertShape;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

/** Scans tokens; `stopAt` lets the caller end the scan where raw data begins. */
export function tokenize(sql: string, stopAt?: (tokens: Token[]) => boolean): { tokens: Token[]; stoppedAt?: number } {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  const n = sql.length;
  let stopped = false;
  const push = (kind: Token['kind'], start: number, end: number, d = depth): void => {
    tokens.push({ kind, text: sql.slice(start, end), start, end, depth: d });
    if (stopAt !== undefined && stopAt(tokens)) stopped = true;
  };
  while (i < n && !stopped) {
    const c = sql[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      i = skipLine(sql, i);
      continue;
    }
    // ClickHouse treats `# ` and `#!` as MySQL-style line comments; a bare `#` is something else.
    if (c === '#' && (sql[i + 1] === ' ' || sql[i + 1] === '!')) {
      i = skipLine(sql, i);
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      i = skipBlockComment(sql, i);
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      const end = skipQuoted(sql, i, c);
      push(c === "'" ? 'string' : 'quoted', i, end);
      i = end;
      continue;
    }
    if (c === '$') {
      const heredocEnd = skipHeredoc(sql, i);
      if (heredocEnd !== undefined) {
        push('string', i, heredocEnd);
        i = heredocEnd;
        continue;
      }
    }
    if (c >= '0' && c <= '9') {
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.]/.test(sql[j]!)) j++;
      push('number', i, j);
      i = j;
      continue;
    }
    if (WORD_START.test(c)) {
      let j = i + 1;
      while (j < n && WORD_CHAR.test(sql[j]!)) j++;
      push('word', i, j);
      i = j;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') {
      push('punct', i, i + 1);
      depth++;
      i++;
      continue;
    }
    if (c === ')' || c === ']' || c === '}') {
      depth = Math.max(0, depth - 1);
      push('punct', i, i + 1);
      i++;
      continue;
    }
    push('punct', i, i + 1);
    i++;
  }
  return stopped ? { tokens, stoppedAt: i } : { tokens };
}

function skipLine(sql: string, i: number): number {
  const nl = sql.indexOf('\n', i);
  return nl === -1 ? sql.length : nl + 1;
}

// Nested block comments are legal in ClickHouse (SQL standard), so a flat search for `*/` would
// end the comment too early and expose commented-out text to the statement checks.
function skipBlockComment(sql: string, i: number): number {
  let level = 1;
  let j = i + 2;
  while (j < sql.length && level > 0) {
    if (sql[j] === '/' && sql[j + 1] === '*') {
      level++;
      j += 2;
    } else if (sql[j] === '*' && sql[j + 1] === '/') {
      level--;
      j += 2;
    } else {
      j++;
    }
  }
  return j;
}

// Backslash escapes and doubled quotes are both legal inside ClickHouse quoted text.
function skipQuoted(sql: string, i: number, quote: string): number {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql[j]!;
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (c === quote) {
      if (sql[j + 1] === quote) {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  return sql.length;
}

function skipHeredoc(sql: string, i: number): number | undefined {
  const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
  if (!m) return undefined;
  const tag = m[0];
  const close = sql.indexOf(tag, i + tag.length);
  return close === -1 ? sql.length : close + tag.length;
}

const isWord = (t: Token | undefined, w: string): boolean => t !== undefined && t.kind === 'word' && t.text.toUpperCase() === w;

// Words that can follow a column called `format` but can never be an output format name.
const NOT_A_FORMAT_NAME = new Set([
  'FROM', 'WHERE', 'GROUP', 'ORDER', 'LIMIT', 'SETTINGS', 'UNION', 'AS', 'AND', 'OR', 'HAVING', 'PREWHERE',
  'INTO', 'OFFSET', 'WINDOW', 'QUALIFY', 'INTERSECT', 'EXCEPT', 'ARRAY', 'JOIN', 'LEFT', 'RIGHT', 'INNER',
  'FULL', 'CROSS', 'ON', 'USING', 'FINAL', 'SAMPLE', 'WITH', 'IS', 'NOT', 'IN', 'LIKE', 'BETWEEN', 'DESC', 'ASC',
]);

/**
 * A tokenizer stop predicate that fires once the token just scanned is where an INSERT's own rows
 * begin: right after `FORMAT Name`, or at `VALUES`. Only the INSERT's own row source counts — once
 * a SELECT/WITH/FROM source has been seen, a later `values(...)` or `FORMAT` belongs to that query.
 */
function insertDataStop(): (toks: Token[]) => boolean {
  let decided = false;
  return (toks) => {
    if (decided) return false;
    if (!isWord(toks[0], 'INSERT')) {
      decided = true;
      return false;
    }
    const target = findInsertTargetEnd(toks);
    if (target === undefined || toks.length <= target) return false;
    const last = toks[toks.length - 1]!;
    if (last.depth !== 0) return false;
    const prev = toks[toks.length - 2];
    if (toks.length - 2 >= target && prev !== undefined && prev.depth === 0 && isWord(prev, 'FORMAT') && last.kind === 'word') return true;
    if (isWord(last, 'VALUES')) return true;
    if (isWord(last, 'SELECT') || isWord(last, 'WITH') || isWord(last, 'FROM')) decided = true;
    return false;
  };
}

/** Where an INSERT's header ends and its rows begin: the first top-level row-source keyword. */
const INSERT_SOURCES = new Set(['FORMAT', 'VALUES', 'SELECT', 'WITH', 'FROM']);

export function analyzeStatement(sql: string): StatementShape {
  // For an INSERT the scan must stop where the rows begin: inline JSON or VALUES data is not SQL,
  // and scanning megabytes of it for `;` would be both slow and wrong.
  const { tokens } = tokenize(sql, insertDataStop());
  const isInsert = isWord(tokens[0], 'INSERT');
  const insert = isInsert ? describeInsert(sql, tokens) : undefined;
  const paramTypes = collectParamTypes(sql, tokens);
  if (insert?.dataStart !== undefined) {
    // Everything from the data start on is rows; the statement cannot be split or trimmed.
    return { kind: 'INSERT', secondWord: upper(tokens[1]), statement: sql, multiStatement: false, settingsAfterFormat: false, paramTypes, insert };
  }

  const firstTok = tokens[0];
  const kind = firstTok === undefined ? '' : firstTok.text === '(' ? 'SELECT' : upper(firstTok);
  let statementTokens = tokens;
  let multiStatement = false;
  const semi = tokens.findIndex((t) => t.kind === 'punct' && t.text === ';' && t.depth === 0);
  if (semi !== -1) {
    statementTokens = tokens.slice(0, semi);
    multiStatement = tokens.slice(semi).some((t) => !(t.kind === 'punct' && t.text === ';'));
  }
  const lastTok = statementTokens[statementTokens.length - 1];
  const statement = lastTok === undefined ? '' : sql.slice(0, lastTok.end);
  if (isInsert) {
    return { kind: 'INSERT', secondWord: upper(tokens[1]), statement, multiStatement, settingsAfterFormat: false, paramTypes, insert };
  }

  let format: StatementShape['format'];
  let settingsAfterFormat = false;
  for (let k = statementTokens.length - 2; k >= 0; k--) {
    const t = statementTokens[k]!;
    if (t.depth !== 0 || !isWord(t, 'FORMAT')) continue;
    const name = statementTokens[k + 1]!;
    const before = statementTokens[k - 1];
    if (name.kind !== 'word' || NOT_A_FORMAT_NAME.has(name.text.toUpperCase())) continue;
    if (before !== undefined && (isWord(before, 'AS') || before.text === '.')) continue;
    const after = statementTokens[k + 2];
    // A real trailing FORMAT clause is followed by nothing or by the query-level SETTINGS.
    if (after !== undefined && !isWord(after, 'SETTINGS')) continue;
    format = { name: name.text, keyword: t };
    settingsAfterFormat = after !== undefined;
    break;
  }
  return { kind, secondWord: upper(statementTokens[1]), statement, multiStatement, format, settingsAfterFormat, paramTypes };
}

function upper(t: Token | undefined): string {
  return t === undefined || t.kind !== 'word' ? '' : t.text.toUpperCase();
}

/**
 * Index of the first token after `INSERT INTO [TABLE] target`, or after `INSERT INTO FUNCTION f(...)`.
 * Skipping the target matters because a table may legitimately be called `values` or `format`.
 */
function findInsertTargetEnd(toks: Token[]): number | undefined {
  let k = 1;
  if (!isWord(toks[k], 'INTO')) return undefined;
  k++;
  if (isWord(toks[k], 'TABLE')) k++;
  if (isWord(toks[k], 'FUNCTION')) {
    k++;
    if (toks[k] === undefined) return undefined;
    k++; // function name
    if (toks[k]?.text !== '(') return undefined;
    const openDepth = toks[k]!.depth;
    k++;
    while (k < toks.length && !(toks[k]!.text === ')' && toks[k]!.depth === openDepth)) k++;
    return k < toks.length ? k + 1 : undefined;
  }
  const first = toks[k];
  if (first === undefined || (first.kind !== 'word' && first.kind !== 'quoted')) return undefined;
  k++;
  while (toks[k]?.text === '.' && toks[k + 1] !== undefined && (toks[k + 1]!.kind === 'word' || toks[k + 1]!.kind === 'quoted')) k += 2;
  return k;
}

function describeInsert(sql: string, toks: Token[]): InsertShape {
  const shape: InsertShape = { complexColumns: false };
  const targetEnd = findInsertTargetEnd(toks);
  if (targetEnd === undefined) return shape;
  const intoIdx = isWord(toks[2], 'TABLE') ? 3 : 2;
  shape.table = sql.slice(toks[intoIdx]!.start, toks[targetEnd - 1]!.end);
  let k = targetEnd;
  if (toks[k]?.text === '(' && toks[k]!.depth === 0) {
    const cols: string[] = [];
    let simple = true;
    k++;
    let expectName = true;
    while (k < toks.length && !(toks[k]!.text === ')' && toks[k]!.depth === 0)) {
      const t = toks[k]!;
      if (expectName && t.kind === 'word') cols.push(t.text);
      else if (!expectName && t.text === ',') {
        /* separator */
      } else simple = false;
      expectName = !expectName;
      k++;
    }
    k++;
    if (simple && cols.length > 0) shape.columns = cols;
    else shape.complexColumns = true;
  }
  for (; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.depth !== 0) continue;
    if (isWord(t, 'SETTINGS') && shape.settingsKeyword === undefined) {
      shape.settingsKeyword = t;
      continue;
    }
    const w = t.kind === 'word' ? t.text.toUpperCase() : t.text;
    if (INSERT_SOURCES.has(w) || (t.text === '(' && shape.settingsKeyword === undefined)) {
      shape.source = t;
      if (w === 'FORMAT') {
        const name = toks[k + 1];
        if (name !== undefined && name.kind === 'word') {
          shape.format = name.text;
          shape.dataStart = name.end;
        }
      } else if (w === 'VALUES') {
        shape.dataStart = t.start;
      }
      break;
    }
  }
  return shape;
}

/** `{name:Type}` placeholders; the type is taken verbatim from the source up to the matching `}`. */
function collectParamTypes(sql: string, toks: Token[]): Map<string, string> {
  const types = new Map<string, string>();
  for (let k = 0; k + 3 < toks.length; k++) {
    const open = toks[k]!;
    if (open.text !== '{' || open.kind !== 'punct') continue;
    const name = toks[k + 1]!;
    const colon = toks[k + 2]!;
    if (name.kind !== 'word' || colon.text !== ':') continue;
    let j = k + 3;
    while (j < toks.length && !(toks[j]!.text === '}' && toks[j]!.depth === open.depth)) j++;
    if (j >= toks.length) continue;
    const type = sql.slice(colon.end, toks[j]!.start).trim();
    if (type.length > 0 && !types.has(name.text)) types.set(name.text, type);
  }
  return types;
}
