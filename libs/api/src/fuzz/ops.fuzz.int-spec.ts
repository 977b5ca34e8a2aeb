import { OpNames } from '@loom/contracts';
import { fuzzOps, rowCounts, startTestLoom, uniqueNamespace, type TestLoom } from '../../../testing/src';

/**
 * Issue 9, requirement 5: the time-boxed fuzz run of CI. Every op of the Ops table gets bodies
 * generated from its request class (valid and hostile fields, whole hostile bodies) over HTTP
 * with an admin token. The long run is the `fuzz` section of `npm run reliability`.
 * Reproduce a failure with LOOM_FUZZ_SEED=<the printed seed>.
 */
describe('Fuzzing every op from the op contracts [issue 9: fuzz]', () => {
  const seed = Number(process.env['LOOM_FUZZ_SEED'] ?? 20261201);
  let loom: TestLoom;
  beforeAll(async () => {
    loom = await startTestLoom();
  });
  afterAll(async () => loom.close());

  it('no op answers a 5xx, every 400 names a field of the request, a refused call writes nothing, and the server still answers a real read afterwards', async () => {
    const namespace = uniqueNamespace();
    await loom.record(namespace);
    const report = await fuzzOps(
      { url: loom.url, token: loom.admin.token, namespace, rowCounts: () => rowCounts(loom.gateway.runtime.storage) },
      { seed, runsPerOp: 40, msPerOp: Math.floor(55_000 / OpNames.length) },
    );
    const runs = Object.values(report.runs).reduce((a, b) => a + b, 0);
    process.stdout.write(`fuzz seed ${seed}: ${runs} calls over ${OpNames.length} ops in ${report.ms} ms, ${report.failures.length} failures\n`);
    expect(Object.keys(report.runs).sort()).toEqual([...OpNames].sort());
    for (const op of OpNames) expect([op, report.runs[op]! > 0]).toEqual([op, true]);
    expect(report.failures).toEqual([]);
  }, 180_000);
});
