import { Headers, OpNames } from '@loom/contracts';
import { fuzzOps, startTestLoom, trackWrites, uniqueNamespace, type TestLoom } from '../../../testing/src';

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

  it('the write tracker sees the writes of an accepted call under its correlation id, and none for a refused one', async () => {
    const namespace = uniqueNamespace();
    await loom.record(namespace);
    const writes = trackWrites(loom.gateway.runtime.storage);
    const send = (id: string, body: unknown) =>
      fetch(`${loom.url}/v1/ops/conversation.append`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${loom.admin.token}`, [Headers.correlationId]: id },
        body: JSON.stringify(body),
      });
    expect((await send('tracker-ok', { namespace, thread_id: 't', role: 'user', content: 'the tracker sees this' })).status).toBe(200);
    expect(writes.writesOf('tracker-ok').length).toBeGreaterThan(0);
    expect((await send('tracker-refused', { namespace, thread_id: 't', role: 'user', content: 'x', tokens: 2 ** 32 })).status).toBe(400);
    expect(writes.writesOf('tracker-refused')).toEqual([]);
  });

  it('no op answers a 5xx, every 400 names a field of the request, a refused call writes nothing, and the server still answers a real read afterwards', async () => {
    const namespace = uniqueNamespace();
    await loom.record(namespace);
    const writes = trackWrites(loom.gateway.runtime.storage);
    const report = await fuzzOps(
      { url: loom.url, token: loom.admin.token, namespace, ...writes },
      { seed, runsPerOp: 60, msPerOp: Math.floor(45_000 / OpNames.length) },
    );
    const runs = Object.values(report.runs).reduce((a, b) => a + b, 0);
    process.stdout.write(`fuzz seed ${seed}: ${runs} calls over ${OpNames.length} ops in ${report.ms} ms, ${report.failures.length} failures\n`);
    expect(Object.keys(report.runs).sort()).toEqual([...OpNames].sort());
    for (const op of OpNames) expect([op, report.runs[op]! > 0]).toEqual([op, true]);
    expect(report.failures).toEqual([]);
  }, 180_000);
});
