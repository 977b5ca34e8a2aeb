import { OpNames } from '@loom/contracts';
import { leakedSecrets, missingFixtures, runAccessMatrix, startMatrixLoom, type MatrixLoom, type MatrixReport } from '../../testing/src';

/**
 * Requirement 6 of issue 9: the access matrix generated from the Ops table, over HTTP and MCP,
 * on one embedded Loom whose debug log is captured whole and searched for every token secret.
 */
describe('Access matrix [issue 9: access matrix]', () => {
  let matrix: MatrixLoom;
  let report: MatrixReport;

  beforeAll(async () => {
    matrix = await startMatrixLoom();
    report = await runAccessMatrix(matrix.loom);
  }, 180_000);
  afterAll(async () => matrix.close());

  const describeCase = (c: MatrixReport['cases'][number]) => `${c.op} ${c.caller} ${c.target}: expected ${c.expected}, got ${c.actual} ${c.detail ?? ''}`;

  it('every op in the Ops table has a fixture (a new op fails here until it has one)', () => {
    expect(missingFixtures()).toEqual([]);
  });

  it('covers every op × viewer, writer, admin × all, own_user, own_session × own namespace, another namespace, another user, plus no token and every-namespace tokens', () => {
    const http = report.cases.filter((c) => c.surface === 'http');
    expect(new Set(http.map((c) => c.op))).toEqual(new Set(OpNames));
    const callers = new Set(http.map((c) => c.caller));
    for (const role of ['viewer', 'writer', 'admin']) for (const scope of ['all', 'own_user', 'own_session']) expect(callers).toContain(`${role}/${scope}`);
    for (const other of ['anonymous', 'unknown-token', 'viewer/every-namespace', 'admin/every-namespace']) expect(callers).toContain(other);
    expect(http).toHaveLength(OpNames.length * callers.size * 3);
    // Each outcome actually occurs: the matrix is not all one answer.
    expect(report.counts.allowed).toBeGreaterThan(100);
    expect(report.counts.forbidden).toBeGreaterThan(100);
    expect(report.counts.refused).toBeGreaterThan(100);
  });

  it('SAVE-TOKEN-02, SAVE-TOKEN-05, SAVE-TOKEN-06, BRIEF-ADDR-07: every HTTP case answers exactly the outcome the table and the scope rules give', () => {
    expect(report.mismatches.filter((c) => c.surface === 'http').map(describeCase)).toEqual([]);
  });

  it('RUNS-04: over MCP, initialize and each tool call answer the outcome of the ops they run (a viewer gets a session without a run)', () => {
    expect(report.cases.filter((c) => c.surface === 'mcp').length).toBeGreaterThan(30);
    expect(report.mismatches.filter((c) => c.surface === 'mcp').map(describeCase)).toEqual([]);
  });

  it('no token secret ever appears in the logs (debug level) or in what the LLM was sent, over the whole matrix', () => {
    const logs = matrix.logs();
    expect(logs.length).toBeGreaterThan(10_000);
    expect(report.secrets.length).toBeGreaterThan(12);
    expect(leakedSecrets(logs, report.secrets)).toEqual([]);
    expect(leakedSecrets(matrix.providerRequests(), report.secrets)).toEqual([]);
  });
});
