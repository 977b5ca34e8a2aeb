import { randomBytes } from 'node:crypto';
import { OpNames, Ops } from '@loom/contracts';
import { fuzzOps, startTestLoom, trackWrites, type FuzzReport } from '@loom/testing/fuzz';
import type { ReliabilitySection } from '../section';

/**
 * The long fuzz run (issue 9, requirement 5): the fuzzer of the jest suite, with many more
 * bodies per op and a fresh seed, against an embedded Loom in this process (so the
 * no-partial-write check can see every write its storage makes).
 */
export const section: ReliabilitySection = {
  id: 'fuzz',
  title: 'Property-based fuzzing of every op',
  proves:
    'Bodies generated from each op\'s request contract, valid and hostile (wrong types, huge and deep values, lone surrogates, control characters, SQL fragments, `~`, `@`, reserved keys), never get a 5xx; every 400 names a field; a refused call changes no table; and the server still answers a real read afterwards.',
  order: 50,
  async run(opts) {
    const seed = Number(process.env['LOOM_FUZZ_SEED'] ?? randomBytes(4).readUInt32BE() % 2 ** 31);
    const runsPerOp = opts.long ? 1_000 : 25;
    const msPerOp = opts.long ? 15_000 : 1_200;
    opts.log(`fuzz: seed ${seed}, up to ${runsPerOp} bodies per op (${msPerOp} ms per op at most)`);
    const loom = await startTestLoom();
    try {
      const namespace = `fuzz-${randomBytes(4).toString('hex')}`;
      await loom.record(namespace);
      const report = await fuzzOps(
        { url: loom.url, token: loom.admin.token, namespace, ...trackWrites(loom.gateway.runtime.storage) },
        { seed, runsPerOp, msPerOp, log: (line) => opts.log(`fuzz: ${line}`) },
      );
      return render(report, runsPerOp, msPerOp);
    } finally {
      await loom.close();
    }
  },
};

function render(report: FuzzReport, runsPerOp: number, msPerOp: number): string {
  const total = Object.values(report.runs).reduce((a, b) => a + b, 0);
  const band = (statuses: Record<string, number>, lo: number, hi: number) =>
    Object.entries(statuses)
      .filter(([s]) => Number(s) >= lo && Number(s) < hi)
      .reduce((sum, [, n]) => sum + n, 0);
  const failuresOf = (op: string) => report.failures.filter((f) => f.op === op).length;
  const lines = [
    `Seed **${report.seed}** (reproduce with \`LOOM_FUZZ_SEED=${report.seed} npm run reliability\`), up to ${runsPerOp} bodies per op and ${Math.round(msPerOp / 1000)} s per op: **${total} calls** over ${OpNames.length} ops in ${Math.round(report.ms / 1000)} s. **Failures found: ${report.failures.length}.**`,
    '',
    'Each body mixes valid fields with hostile ones, drawn from the op\'s request class (its class-validator rules), or is a hostile body as a whole (not JSON, an array, nested 20,000 deep, 1.4 MB). A 501 from `conversation.compact` is its documented answer without an LLM. The rules checked on every call: no 5xx; a 400 names a field of the request or its contract, or `(body)`; a refused call makes no write: every insert and statement the storage runs is recorded under the correlation id of the call it serves (the fuzzer sends its own), and a refused call must have none; and at the end an append and a list of the same thread round-trip.',
    '',
    '| op | role | calls | 2xx | 4xx | 501 (no LLM) | other 5xx | failures |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...OpNames.map((op) => {
      const statuses = report.statuses[op] ?? {};
      return `| \`${op}\` | ${Ops[op].role} | ${report.runs[op] ?? 0} | ${band(statuses, 200, 300)} | ${band(statuses, 400, 500)} | ${band(statuses, 501, 502)} | ${band(statuses, 500, 600) - band(statuses, 501, 502)} | ${failuresOf(op)} |`;
    }),
  ];
  if (report.failures.length > 0) {
    lines.push('', '### Failures', '', '| op | rule | status | detail | body |', '|---|---|---:|---|---|');
    for (const f of report.failures.slice(0, 50)) lines.push(`| \`${f.op}\` | ${f.rule} | ${f.status} | ${cell(f.detail)} | ${cell(f.body)} |`);
  }
  return lines.join('\n');
}

/** Text safe inside a markdown table cell. */
function cell(text: string): string {
  return '`' + text.slice(0, 160).replace(/[|`\n\r]/g, ' ').replace(/\p{Cs}/gu, '\ufffd') + '`';
}
