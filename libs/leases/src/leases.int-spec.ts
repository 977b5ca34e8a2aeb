import { connect, type NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';
import { startTestNats, type TestNats } from '../../testing/src';
import { InMemoryLeaseManager } from './in-memory.leases';
import { encodeKey, NatsKvLeaseManager } from './nats-kv.leases';
import { LeaseLostError, LeasesUnreachableError, leaseKey, withLease, type LeaseManager } from './lease';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let nats: TestNats;
let nc: NatsConnection;
const buckets: string[] = [];
const testBucket = (): string => {
  buckets.push(`test_leases_${randomUUID().slice(0, 8)}`);
  return buckets.at(-1)!;
};
beforeAll(async () => {
  nats = await startTestNats();
  nc = await connect({ servers: nats.url });
});
afterAll(async () => {
  const jsm = await nc.jetstreamManager();
  for (const bucket of buckets) await jsm.streams.delete(`KV_${bucket}`).catch(() => undefined);
  await nc.close();
  await nats.close();
});

// The same contract for both backends: embedded runs the in-memory one, split runs NATS KV.
describe.each([
  ['in-memory', (ttlMs: number): LeaseManager => new InMemoryLeaseManager(ttlMs)],
  ['NATS KV', (ttlMs: number): LeaseManager => new NatsKvLeaseManager(nc, testBucket(), ttlMs)],
])('leases on %s', (_name, make) => {
  it('lets one holder in; a second acquire fails until the first releases, and its token is greater', async () => {
    const leases = make(10_000);
    const first = await leases.acquire('thread/a');
    expect(first).toBeDefined();
    await expect(leases.acquire('thread/a')).resolves.toBeUndefined();
    // Other keys are independent.
    await expect(leases.acquire('thread/b')).resolves.toBeDefined();
    await first!.release();
    const second = await leases.acquire('thread/a');
    expect(second!.token).toBeGreaterThan(first!.token);
    expect(first!.signal.aborted).toBe(true);
    await second!.release();
  });

  it('of many concurrent acquirers of one key exactly one wins', async () => {
    const leases = make(10_000);
    const results = await Promise.all(Array.from({ length: 20 }, () => leases.acquire('contended')));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('a waiting acquirer gets the lease once the holder releases it', async () => {
    const leases = make(10_000);
    const first = await leases.acquire('wait');
    setTimeout(() => void first!.release(), 150);
    const second = await leases.acquire('wait', { waitMs: 5_000, pollMs: 20 });
    expect(second).toBeDefined();
    await second!.release();
  });

  it('SAVE-LEASE-03: renewing keeps the lease past its TTL; an unrenewed one expires and renew then reports it lost', async () => {
    const leases = make(1_000);
    const held = await leases.acquire('renewed');
    for (let i = 0; i < 5; i++) {
      await sleep(400);
      await held!.renew();
    }
    // 2 s after the acquire, well past the TTL: still ours.
    await expect(leases.acquire('renewed')).resolves.toBeUndefined();
    // Now stop renewing: the key frees itself and a new holder takes it.
    const next = await leases.acquire('renewed', { waitMs: 6_000, pollMs: 100 });
    expect(next).toBeDefined();
    await expect(held!.renew()).rejects.toBeInstanceOf(LeaseLostError);
    expect(held!.signal.aborted).toBe(true);
    // The old holder's release does not free the new holder's lease.
    await held!.release();
    await expect(leases.acquire('renewed')).resolves.toBeUndefined();
    await next!.release();
  });

  it('[issue 13: honest ingest state] isHeld says whether a live holder has the key, without taking it: held, released, and lapsed when the holder stops renewing', async () => {
    const leases = make(1_000);
    await expect(leases.isHeld('peek')).resolves.toBe(false);
    const held = await leases.acquire('peek');
    await expect(leases.isHeld('peek')).resolves.toBe(true);
    // Asking never takes it: the holder still renews, and nobody else can acquire.
    await held!.renew();
    await expect(leases.acquire('peek')).resolves.toBeUndefined();
    await held!.release();
    await expect(leases.isHeld('peek')).resolves.toBe(false);
    // A holder that dies (stops renewing): held until the TTL, then not.
    await leases.acquire('peek');
    await expect(leases.isHeld('peek')).resolves.toBe(true);
    const deadline = Date.now() + 6_000;
    while ((await leases.isHeld('peek')) && Date.now() < deadline) await sleep(100);
    await expect(leases.isHeld('peek')).resolves.toBe(false);
    expect(Date.now()).toBeLessThan(deadline);
  });

  it('withLease renews while the work runs longer than the TTL, and releases after', async () => {
    const leases = make(600);
    const outcome = await withLease(leases, 'long-work', async (lease) => {
      await sleep(1_500);
      await expect(leases.acquire('long-work')).resolves.toBeUndefined();
      return lease.signal.aborted;
    });
    expect(outcome).toEqual({ acquired: true, value: false });
    const after = await leases.acquire('long-work');
    expect(after).toBeDefined();
    await after!.release();
    await expect(withLease(leases, 'long-work', async () => 1)).resolves.toEqual({ acquired: true, value: 1 });
  });
});

describe('[issue 11: appends during a NATS outage] NATS KV leases while the connection is down', () => {
  it('an acquire fails at once with LeasesUnreachableError (503 unavailable), not "held by another", and works again once the connection is back', async () => {
    let up = false;
    const leases = new NatsKvLeaseManager(nc, testBucket(), 10_000, () => up);
    const started = Date.now();
    const refused = await leases.acquire('thread/down', { waitMs: 5_000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LeasesUnreachableError);
    expect(refused).toMatchObject({ code: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(1_000);
    up = true;
    const held = await leases.acquire('thread/down');
    expect(held).toBeDefined();
    await held!.release();
  });
});

describe('lease keys', () => {
  it('free-text parts never collide and always make a valid NATS KV key', () => {
    expect(leaseKey('a/b', 'c')).not.toBe(leaseKey('a', 'b/c'));
    expect(leaseKey('a%2Fb', 'c')).not.toBe(leaseKey('a/b', 'c'));
    for (const key of [leaseKey('ns', 'thread.with.dots'), leaseKey('ns', 'ünïcode 🧵'), leaseKey('', '')]) {
      expect(encodeKey(key)).toMatch(/^[-_=a-zA-Z0-9]+$/);
    }
  });
});
