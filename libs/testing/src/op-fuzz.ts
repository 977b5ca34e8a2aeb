import * as fc from 'fast-check';
import { Headers, OpNames, Ops, type OpName } from '@loom/contracts';
import { requestModel, type FieldModel, type RequestModel } from './op-model';

/**
 * Property-based fuzzing of every op, driven by the op contracts: for each op of the `Ops`
 * table, bodies built from its request class's validators, each field either valid or hostile
 * (wrong types, huge and deep values, lone surrogates, control characters, SQL fragments, `~`,
 * `@`, reserved keys), sent over HTTP. Every answer is checked against the rules of issue 9:
 * never a 5xx; a 400 names a field the request has (or the body); a refused call writes
 * nothing; and afterwards the server still answers a real read.
 */

export interface FuzzTarget {
  url: string;
  token: string;
  /** A namespace with recording on: valid bodies act in it. */
  namespace: string;
  /** The writes the server made for the call with this correlation id (omit to skip the no-partial-write check). */
  writesOf?: (correlationId: string) => string[];
  forget?: (correlationId: string) => void;
}

export interface FuzzOptions {
  seed: number;
  /** Bodies per op, at most. */
  runsPerOp: number;
  /** Time allowed per op (ms), whatever runsPerOp says. */
  msPerOp: number;
  ops?: readonly OpName[];
  /**
   * Valid values by field name, for fields whose valid values the validators cannot tell (a
   * repository that exists, a path in it): valid bodies then reach past the lookups.
   */
  values?: Readonly<Partial<Record<OpName, FieldValues>>>;
  log?: (line: string) => void;
}

/** Valid values by field name (nested classes' fields included). */
export type FieldValues = Readonly<Record<string, readonly unknown[]>>;

export interface FuzzFailure {
  op: OpName;
  rule: 'no-5xx' | 'names-a-field' | 'no-partial-write' | 'still-answers' | 'no-secret-echo';
  status: number;
  detail: string;
  body: string;
}

export interface FuzzReport {
  seed: number;
  runs: Record<string, number>;
  statuses: Record<string, Record<string, number>>;
  failures: FuzzFailure[];
  ms: number;
}

/** A value serialised as raw JSON text: values too deep for JSON.stringify, or reserved keys. */
class RawJson {
  constructor(readonly text: string) {}
}

const SQL = ["' OR 1=1 --", "'); DROP TABLE conversations; --", '{ns:String}', "\\'", '`x`', '1; SELECT * FROM system.tables', '%s%n', '${x}', "' UNION SELECT token_hash FROM api_tokens --"];
const CONTROL = ['\u0000', 'a\u0000b', '\u0007\u001b[31mred', '\r\n', '\t', '\u0085\u2028\u2029', '\u200b', '\ufeff'];
const SURROGATES = ['\ud800', 'a\udfffb', '\ud83d', 'x\udc00', '\ud800\ud800'];
const MARKS = ['~', 'alice~bob', '~a~b~', '@', '@me', 'a@b', '*', '..', '../../etc/passwd', '/', '%00', 'null', 'undefined', 'NaN'];
/** Paths and refs that climb out of a repository, name a device, or read as an option to git. */
const TRAVERSAL = ['../../../../etc/passwd', '..\\..\\windows\\win.ini', '/etc/shadow', 'src/../../../x', '%2e%2e%2f%2e%2e%2f', '....//....//', '/dev/zero', '-', '--output=/tmp/loom-pwned', '-oProxyCommand=touch /tmp/loom-pwned', 'HEAD~1', 'HEAD^{tree}', '@{-1}', 'main..HEAD', 'refs/heads/../../x', ':/fix', 'file:///etc/passwd', '\\\\server\\share', 'C:\\x'];
/**
 * Secrets a caller pastes into a text field: a fuzz test checks that none comes back in an
 * answer or reaches a log line. Made up, never real, but each is a high shape.
 */
export const FUZZ_SECRETS = [
  'ghp_R8kd2Lq9Vx7mN4pT6wZ1yB3cF5hJ0sA2eG4i',
  'sk-proj-Qm7Tz2Lx9Vb4Nc6Rd8Sf1Gh3Jk5Lp0Wq2Er4Ty6U',
  'AKIAQ7X2M4N6P8R0T2V4',
  'password=Hunter2Secret!9',
  'xoxb-2048-4096-Zq8Wm3Rt7Yp1Lk5Hn9Bv',
  '4111 1111 1111 1111',
];
const SECRET_TEXT = FUZZ_SECRETS.map((secret) => `here it is: ${secret}`);
const NUMBERS = [0, -1, 1, 1.5, -0.5, 2 ** 31, 2 ** 32, 2 ** 32 + 5, 2 ** 53, 2 ** 53 + 2, 1e21, -1e21, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1e308];

/** A value of any JSON type, small. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(...NUMBERS),
  fc.string({ maxLength: 8 }),
  fc.constant([]),
  fc.constant({}),
  fc.constant([1, 'a']),
);

/** Text a hostile caller sends in a string field. */
const hostileString: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...SQL, ...CONTROL, ...SURROGATES, ...MARKS, ...TRAVERSAL, ...FUZZ_SECRETS, ...SECRET_TEXT, '', ' ', '\u00e9\u0301', '👍'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 256, max: 70_000 }).map((n) => 'x'.repeat(n)),
  fc.constantFrom(...SQL, ...SURROGATES, ...MARKS).chain((s) => fc.string({ maxLength: 12 }).map((t) => `${t}${s}${t}`)),
);

/** Nesting deep enough to break whatever recurses, as raw JSON (arrays or objects). */
const deep: fc.Arbitrary<unknown> = fc
  .record({ depth: fc.constantFrom(17, 33, 40, 1_000, 5_000, 20_000), objects: fc.boolean() })
  .map(({ depth, objects }) => new RawJson(objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth)));

/** An object whose keys are the ones that change what a plain object means. */
const reservedKeys: fc.Arbitrary<unknown> = fc
  .constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'k\ud800', '', 'a.b', '$where')
  .chain((key) => anyJson.map((value) => new RawJson(`{${JSON.stringify(key)}:${serialize(value)},"ok":1}`)));

/** Wrong for any field: another type, a huge or deep value, a hostile string, reserved keys. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: anyJson, weight: 3 },
  { arbitrary: hostileString, weight: 4 },
  { arbitrary: deep, weight: 1 },
  { arbitrary: reservedKeys, weight: 2 },
  { arbitrary: fc.constantFrom(...NUMBERS), weight: 2 },
);

/** The ids valid bodies use: few, so reads and writes meet on the same threads and runs. */
const ids = (prefix: string) => fc.constantFrom(`${prefix}1`, `${prefix}2`, `${prefix}3`);
const wordy = fc.constantFrom('we moved the invoices to ledger two', 'deploy failed on step three', 'the cache key is stale', 'Ünïcödé wörds and 数字 42', 'password is not here');

function validValue(field: FieldModel, namespace: string, values?: FieldValues): fc.Arbitrary<unknown> {
  const { name } = field;
  const hinted = values?.[name];
  if (hinted && hinted.length > 0) return fc.constantFrom(...hinted);
  if (name === 'namespace') return fc.constant(namespace);
  if (name === 'agent') return fc.constantFrom('default', 'fuzz-agent');
  if (name === 'namespace_list') return fc.constant([namespace]);
  switch (field.kind) {
    case 'enum':
      return fc.constantFrom(...(field.values ?? ['x']));
    case 'int':
      return fc.integer({ min: field.min ?? 0, max: Math.min(field.max ?? 1_000, 1_000_000) });
    case 'number':
      return fc.double({ min: field.min ?? 0, max: field.max ?? 1, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'date':
      return fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'object':
      return fc.dictionary(fc.constantFrom('client', 'tag', 'n', 'nested'), fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant({ a: [1, 2] })), { maxKeys: 3 });
    case 'strings':
      return fc.array(field.pattern ? fc.constant(namespace) : wordy, { minLength: field.minItems ?? 0, maxLength: Math.min(field.maxItems ?? 3, 3) });
    case 'nested':
      return requestBody(field.nested!, namespace, 0, values);
    case 'nestedArray':
      return fc.array(requestBody(field.nested!, namespace, 0, values), { minLength: Math.max(1, field.minItems ?? 1), maxLength: 3 });
    case 'string':
      if (name.endsWith('_id') || name === 'message_ids' || name === 'confirm_thread_id') return ids(name.replace(/_id$/, '').slice(0, 4));
      if (name === 'cursor') return fc.constantFrom('WyIxIl0', 'bm90IGEgY3Vyc29y');
      if (name === 'brief_key') return fc.constantFrom('auto/p/b', 'k1', '~u1~k1');
      if (field.pattern) return fc.constant('valid-value');
      return field.maxLength !== undefined && field.maxLength < 40 ? fc.constantFrom('a', 'ok') : wordy;
    default:
      return anyJson;
  }
}

/**
 * A body for one request class: each field left out (when optional), valid, or hostile, and
 * sometimes a field the class does not have. `hostileShare` is the chance a field is hostile.
 */
function requestBody(model: RequestModel, namespace: string, hostileShare: number, values?: FieldValues): fc.Arbitrary<Record<string, unknown>> {
  const entries = model.fields.map((field) => {
    const choices: Array<fc.WeightedArbitrary<unknown>> = [{ arbitrary: validValue(field, namespace, values), weight: 10 }];
    // A nested class gets hostile fields of its own too (pull_requests.1.number, mapping.issues.table).
    if (hostileShare > 0 && field.nested && field.kind === 'nestedArray') choices.push({ arbitrary: fc.array(requestBody(field.nested, namespace, hostileShare, values), { minLength: 1, maxLength: 3 }), weight: 3 });
    if (hostileShare > 0 && field.nested && field.kind === 'nested') choices.push({ arbitrary: requestBody(field.nested, namespace, hostileShare, values), weight: 3 });
    if (hostileShare > 0) choices.push({ arbitrary: hostile, weight: Math.round(hostileShare * 10) });
    if (field.optional) choices.push({ arbitrary: fc.constant(undefined), weight: 4 });
    return [field.name, fc.oneof(...choices)] as const;
  });
  const extra = hostileShare > 0 ? fc.option(fc.tuple(fc.constantFrom('thread-id', 'x', '__proto__', 'constructor', 'admin', 'role '), hostile), { freq: 6 }) : fc.constant(null);
  return fc.tuple(fc.tuple(...entries.map(([, arb]) => arb)), extra).map(([values, more]) => {
    const body: Record<string, unknown> = {};
    entries.forEach(([name], i) => {
      if (values[i] !== undefined) body[name] = values[i];
    });
    if (more) Object.defineProperty(body, more[0], { value: more[1], enumerable: true, configurable: true, writable: true });
    return body;
  });
}

/** One call: a JSON body (serialised with raw parts), or raw text that is not a JSON object. */
type FuzzCall = { body: Record<string, unknown> } | { raw: string };

function callsFor(op: OpName, namespace: string, values?: FieldValues): fc.Arbitrary<FuzzCall> {
  const model = requestModel(Ops[op].request as new () => object);
  const wholeBody = fc.oneof(
    fc.constantFrom('', '[]', '"x"', '1', 'null', 'true', '{"namespace": ', '{"a":1,}', '\u0000', '{"a":"\\ud800"}', '{"a":1e999}', '{"namespace":"x","namespace":"y"}'),
    deep.map((d) => (d as RawJson).text),
    fc.constant(`{"x":"${'y'.repeat(1_400_000)}"}`),
  );
  return fc.oneof(
    { arbitrary: requestBody(model, namespace, 0, values).map((body) => ({ body })), weight: 4 },
    { arbitrary: requestBody(model, namespace, 0.2, values).map((body) => ({ body })), weight: 5 },
    { arbitrary: wholeBody.map((raw) => ({ raw })), weight: 1 },
  );
}

/** JSON text of a value that may hold RawJson parts (too deep for JSON.stringify, or reserved keys). */
export function serialize(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${serialize((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The first segment of an error's field path (`metadata.a[0]` → `metadata`; `"a.b".c` → `a.b`). */
function rootOf(field: string): string {
  if (field.startsWith('"')) {
    try {
      return JSON.parse(field.slice(0, field.indexOf('"', 1) + 1)) as string;
    } catch {
      return field;
    }
  }
  return field.split(/[.[]/)[0]!;
}

/** The keys of the body's top-level object, when it is one. */
function topLevelKeys(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.keys(parsed) : [];
  } catch {
    return [];
  }
}

async function post(target: FuzzTarget, op: string, text: string, correlationId?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${target.url}/v1/ops/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.token}`, ...(correlationId ? { [Headers.correlationId]: correlationId } : {}) },
    body: text,
  });
  const raw = await response.text();
  let body: unknown;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    body = raw;
  }
  return { status: response.status, body };
}

/** Runs the fuzzer against a running Loom; never throws for what it finds, it reports it. */
export async function fuzzOps(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const report: FuzzReport = { seed: options.seed, runs: {}, statuses: {}, failures: [], ms: 0 };
  const ops = options.ops ?? OpNames;
  for (const [index, op] of ops.entries()) {
    report.runs[op] = 0;
    report.statuses[op] = {};
    const contractFields = requestModel(Ops[op].request as new () => object).fields.map((f) => f.name);
    const property = fc.asyncProperty(callsFor(op, target.namespace, options.values?.[op]), async (call) => {
      const text = 'raw' in call ? call.raw : serialize(call.body);
      const shown = text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
      const correlationId = `fuzz-${options.seed}-${index}-${report.runs[op] ?? 0}`;
      const result = await post(target, op, text, correlationId);
      report.runs[op] = (report.runs[op] ?? 0) + 1;
      const statuses = report.statuses[op]!;
      statuses[result.status] = (statuses[result.status] ?? 0) + 1;
      const fail = (rule: FuzzFailure['rule'], detail: string) => report.failures.push({ op, rule, status: result.status, detail, body: shown });
      // 501 is conversation.compact's documented answer without an LLM, not a crash.
      if (result.status >= 500 && !(result.status === 501 && result.body?.error?.code === 'not_configured')) fail('no-5xx', JSON.stringify(result.body).slice(0, 300));
      if (result.status === 400) {
        const fields: Array<{ field: string }> = result.body?.error?.fields ?? [];
        // A field the request holds, or one its contract has (a required field left out).
        const known = new Set([...topLevelKeys(text), ...contractFields]);
        if (!fields.some((f) => f.field === '(body)' || known.has(rootOf(f.field)))) fail('names-a-field', JSON.stringify(result.body?.error).slice(0, 300));
      }
      // A refusal says what is wrong with a value, never the value: a pasted secret is not sent back.
      if (result.status >= 400) {
        const answer = JSON.stringify(result.body);
        const echoed = FUZZ_SECRETS.filter((secret) => text.includes(secret) && answer.includes(secret));
        if (echoed.length > 0) fail('no-secret-echo', `${echoed.join(', ')} in ${answer.slice(0, 300)}`);
      }
      if (target.writesOf && result.status >= 400) {
        const written = target.writesOf(correlationId);
        if (written.length > 0) fail('no-partial-write', `refused with ${result.status} but wrote ${[...new Set(written)].join(', ')}`);
      }
      target.forget?.(correlationId);
      return true;
    });
    await fc.check(property, { seed: options.seed + index, numRuns: options.runsPerOp, interruptAfterTimeLimit: options.msPerOp, markInterruptAsFailure: false });
    options.log?.(`${op}: ${report.runs[op]} runs, statuses ${JSON.stringify(report.statuses[op])}`);
  }
  await stillAnswers(target, report);
  report.ms = Date.now() - started;
  return report;
}

/** After the storm: an append and a list of the same thread must round-trip. */
async function stillAnswers(target: FuzzTarget, report: FuzzReport): Promise<void> {
  const thread = `after-fuzz-${report.seed}`;
  // The fuzz may have switched recording off with a valid conversation.set_logging.
  await post(target, 'conversation.set_logging', JSON.stringify({ namespace: target.namespace, enabled: true }));
  const appended = await post(target, 'conversation.append', JSON.stringify({ namespace: target.namespace, thread_id: thread, role: 'user', content: 'the fuzzer is done' }));
  const listed = await post(target, 'conversation.list', JSON.stringify({ namespace: target.namespace, thread_id: thread }));
  const contents = (listed.body?.messages ?? []).map((m: { content: string }) => m.content);
  if (appended.status !== 200 || appended.body?.stored !== true || listed.status !== 200 || !contents.includes('the fuzzer is done')) {
    report.failures.push({ op: 'conversation.list', rule: 'still-answers', status: listed.status, detail: `append ${appended.status} ${JSON.stringify(appended.body).slice(0, 100)}, list ${listed.status}: ${JSON.stringify(listed.body).slice(0, 200)}`, body: '' });
  }
}
