import { writeFileSync } from 'node:fs';
import { leakedSecrets, missingFixtures, runAccessMatrix, startMatrixLoom, type MatrixCase } from '@loom/testing/access-matrix';

/** What the access-matrix section reports: figures only (no token, no body). */
export interface AccessMatrixResult {
  counts: { cases: number; allowed: number; forbidden: number; refused: number; mismatches: number };
  httpCases: number;
  mcpCases: number;
  ops: number;
  missingFixtures: string[];
  secrets: number;
  logBytes: number;
  leaksInLogs: number;
  leaksToProvider: number;
  byCaller: Array<{ caller: string; allowed: number; forbidden: number; refused: number }>;
  mismatches: Array<Omit<MatrixCase, 'detail'>>;
  ms: number;
}

/**
 * Runs the access matrix on a fresh embedded Loom in this process (its own chDB directory), and
 * writes the figures to the file named by the first argument.
 */
async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: access-matrix-child <result.json>');
  const matrix = await startMatrixLoom();
  try {
    const report = await runAccessMatrix(matrix.loom, { log: (line) => process.stderr.write(`${line}\n`) });
    const logs = matrix.logs();
    const callers = [...new Set(report.cases.map((c) => c.caller))];
    const result: AccessMatrixResult = {
      counts: report.counts,
      httpCases: report.cases.filter((c) => c.surface === 'http').length,
      mcpCases: report.cases.filter((c) => c.surface === 'mcp').length,
      ops: new Set(report.cases.filter((c) => c.surface === 'http').map((c) => c.op)).size,
      missingFixtures: missingFixtures(),
      secrets: report.secrets.length,
      logBytes: Buffer.byteLength(logs),
      leaksInLogs: leakedSecrets(logs, report.secrets).length,
      leaksToProvider: leakedSecrets(matrix.providerRequests(), report.secrets).length,
      byCaller: callers.map((caller) => {
        const mine = report.cases.filter((c) => c.caller === caller);
        const allowed = mine.filter((c) => c.actual === 'allow').length;
        const forbidden = mine.filter((c) => c.actual === 'forbidden').length;
        return { caller, allowed, forbidden, refused: mine.length - allowed - forbidden };
      }),
      mismatches: report.mismatches.map(({ detail: _detail, ...rest }) => rest),
      ms: report.ms,
    };
    writeFileSync(out, JSON.stringify(result));
  } finally {
    await matrix.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
