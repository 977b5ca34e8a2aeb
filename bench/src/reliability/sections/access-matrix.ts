import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch } from '@loom/testing/processes';
import type { AccessMatrixResult } from '../access-matrix-child';
import type { ReliabilitySection } from '../section';

export const section: ReliabilitySection = {
  id: 'access-matrix',
  title: 'Access matrix',
  proves:
    'Every op of the ops table, called by each role (viewer, writer, admin) in each read scope (all, own_user, own_session), on its own namespace, another namespace and for another user, over HTTP and MCP, answers exactly the allow, 403 or 401 that the table and the scope rules give; and no token secret appears in the debug log or in anything sent to the LLM.',
  order: 60,
  async run(opts) {
    const dir = mkdtempSync(join(tmpdir(), 'loom-access-matrix-'));
    const resultPath = join(dir, 'result.json');
    try {
      opts.log('access matrix: starting a fresh embedded Loom in a child process');
      // A child of its own: the embedded engine takes one data directory per process.
      const child = launch('access-matrix', process.execPath, [join(__dirname, '..', 'access-matrix-child.js'), resultPath], { OTEL_TRACES_EXPORTER: 'none', LOOM_TRACES: 'none' }, {
        onLine: (line) => opts.log(`  [access-matrix] ${line}`),
      });
      const code = await child.exited;
      if (code !== 0) throw new Error(`the access-matrix child failed (exit ${code}):\n${child.output()}`);
      return render(JSON.parse(readFileSync(resultPath, 'utf8')) as AccessMatrixResult);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

function render(r: AccessMatrixResult): string {
  const lines = [
    `Generated from the ops table: ${r.ops} ops × ${r.byCaller.length} callers × 3 targets (own namespace, another namespace, another user) = ${r.httpCases} HTTP cases, plus ${r.mcpCases} MCP cases (initialize, and a tool call per tool). The callers are no token, an unknown token, viewer/writer/admin in each read scope, and viewer/writer/admin tokens for every namespace. Each case's expected answer comes from the op's \`role\`, \`perUser\` and \`deploymentWide\` and the documented scope rules, not from what the server answered. Ran in ${(r.ms / 1000).toFixed(1)} s.`,
    '',
    '| Figure | Value |',
    '| --- | ---: |',
    `| Cases | ${r.counts.cases} |`,
    `| Allowed (200) | ${r.counts.allowed} |`,
    `| Forbidden (403) | ${r.counts.forbidden} |`,
    `| Refused (401) | ${r.counts.refused} |`,
    `| **Mismatches** (answer differs from the expected one) | **${r.counts.mismatches}** |`,
    `| Ops without a fixture | ${r.missingFixtures.length} |`,
    `| Token secrets tracked | ${r.secrets} |`,
    `| Debug log searched | ${(r.logBytes / 1024).toFixed(0)} KiB |`,
    `| **Token secrets found in the log** | **${r.leaksInLogs}** |`,
    `| Token secrets found in LLM requests | ${r.leaksToProvider} |`,
    '',
    '| Caller | Allowed | 403 | Refused |',
    '| --- | ---: | ---: | ---: |',
    ...r.byCaller.map((c) => `| ${c.caller} | ${c.allowed} | ${c.forbidden} | ${c.refused} |`),
  ];
  if (r.mismatches.length > 0) {
    lines.push('', 'Mismatches (first 20):', '', '| Surface | Op | Caller | Target | Expected | Answered |', '| --- | --- | --- | --- | --- | --- |');
    for (const m of r.mismatches.slice(0, 20)) lines.push(`| ${m.surface} | ${m.op} | ${m.caller} | ${m.target} | ${m.expected} | ${m.actual} (${m.status}) |`);
  }
  if (r.missingFixtures.length > 0) lines.push('', `Ops with no fixture: ${r.missingFixtures.join(', ')}.`);
  return lines.join('\n');
}
