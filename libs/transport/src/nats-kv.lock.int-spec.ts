import { runMigrations } from '@loom/clickhouse';
import { connect, type NatsConnection } from 'nats';
import { openTestStorage, startTestNats, type TestNats } from '../../testing/src';
import { NatsKvLock } from './nats-kv.lock';

describe('NATS KV lock', () => {
  let nats: TestNats;
  let nc: NatsConnection;
  beforeAll(async () => {
    nats = await startTestNats();
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc.close();
    await nats.close();
  });

  it('lets one holder in at a time and the next in after release', async () => {
    const lock = new NatsKvLock(nc, { pollMs: 20 });
    const order: string[] = [];
    const hold = async (who: string) => {
      const release = await lock.acquire('test-lock');
      order.push(`${who}:in`);
      await new Promise((r) => setTimeout(r, 50));
      order.push(`${who}:out`);
      await release();
    };
    await Promise.all([hold('a'), hold('b'), hold('c')]);
    for (let i = 0; i < order.length; i += 2) {
      expect(order[i]!.endsWith(':in')).toBe(true);
      expect(order[i + 1]).toBe(order[i]!.replace(':in', ':out'));
    }
  });

  it('two replicas starting at once migrate the schema once: every version is recorded exactly once', async () => {
    const storage = await openTestStorage();
    try {
      await storage.command(`DROP TABLE ${storage.tables.migrations}`);
      const lock = new NatsKvLock(nc, { pollMs: 20 });
      await Promise.all([runMigrations(storage, { lock }), runMigrations(storage, { lock })]);
      const rows = await storage.query<{ version: number; n: string }>(`SELECT version, count() AS n FROM ${storage.tables.migrations} GROUP BY version`);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
    } finally {
      await storage.drop();
    }
  });
});
