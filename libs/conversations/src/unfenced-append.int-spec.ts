import { connect, type NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';
import { AppendTurnRequest } from '@loom/contracts';
import { NatsKvLeaseManager } from '@loom/leases';
import { createConversationPlane, EMBED_UNFENCED, StorageCheckedFence, unindexedPlaceholder, type ConversationPlane } from './index';
import { countRows, embeddingRows, startTestLoom, startTestNats, tombstoneTurn, uniqueNamespace, type TestLoom, type TestNats } from '../../testing/src';

/**
 * [issue 11: appends during a NATS outage] Two planes stand for two gateways of the split
 * topology: one storage, the storage-checked fence, thread leases on real NATS KV whose
 * reachability the test switches off (as the gateway's NatsLink reports an outage).
 */
describe('[issue 11: appends during a NATS outage] appends without the thread lease (ADR 0026)', () => {
  let loom: TestLoom;
  let nats: TestNats;
  let nc: NatsConnection;
  let reachable = true;
  const bucket = `test_unfenced_${randomUUID().slice(0, 8)}`;
  let gateways: ConversationPlane[];
  const storage = () => loom.gateway.runtime.storage;

  beforeAll(async () => {
    loom = await startTestLoom();
    nats = await startTestNats();
    nc = await connect({ servers: nats.url });
    const plane = () =>
      createConversationPlane({
        storage: storage(),
        requests: loom.gateway.runtime.requests,
        embedTimeoutMs: 5_000,
        defaults: { searchExcerptChars: 240, searchMinSimilarity: 0.3 },
        batching: { lingerMs: 2, maxRows: 100 },
        fence: new StorageCheckedFence(),
        leases: new NatsKvLeaseManager(nc, bucket, 10_000, () => reachable),
      });
    gateways = [plane(), plane()];
  });
  afterEach(() => {
    reachable = true;
  });
  afterAll(async () => {
    await nc.close();
    await nats.close();
    await loom.close();
  });

  const turn = (thread: string, msgId: string, content: string, role: 'user' | 'assistant' = 'user') =>
    Object.assign(new AppendTurnRequest(), { thread_id: thread, msg_id: msgId, role, content });
  const liveRows = async (ns: string) =>
    storage().query<{ msg_id: string; model: string; dims: number; text: string }>(
      `SELECT msg_id, model, length(embedding) AS dims, text FROM ${storage().tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND deleted = 0 ORDER BY msg_id`,
      { ns },
    );

  it('[issue 11: NATS outage] appends from two gateways to the same and different threads are acknowledged and stored once, a turn raced through both included; each gets its vector once the leases are back', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    reachable = false;
    const sent = [
      ...Array.from({ length: 6 }, (_, i) => ({ via: i % 2, req: turn('shared', `s${i}`, `shared thread turn ${i} about the ledger`) })),
      ...Array.from({ length: 3 }, (_, i) => ({ via: 0, req: turn('own-a', `a${i}`, `gateway a turn ${i} about invoices`) })),
      ...Array.from({ length: 3 }, (_, i) => ({ via: 1, req: turn('own-b', `b${i}`, `gateway b turn ${i} about payroll`) })),
    ];
    const answers = await Promise.all(sent.map((s) => gateways[s.via]!.append.append(ns, 'default', s.req)));
    expect(answers.every((a) => a.stored)).toBe(true);
    // One turn sent to both gateways at once (a client's retry racing its first try).
    const raced = await Promise.all(gateways.map((g) => g.append.append(ns, 'default', turn('shared', 'raced', 'the raced turn about the ledger'))));
    expect(raced.filter((a) => a.stored || a.reason === 'duplicate')).toHaveLength(2);
    expect(await countRows(storage(), 'conversations', { namespace: ns })).toBe(13);
    // Nothing live was written without the lease: the turns wait as placeholders, found by no search.
    expect(await liveRows(ns)).toEqual([]);
    const waiting = await storage().query<{ n: string }>(`SELECT count() AS n FROM ${storage().tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND embed_error = {m:String}`, { ns, m: EMBED_UNFENCED });
    expect(Number(waiting[0]!.n)).toBe(13);
    // While the leases are down, writes that need them still answer 503 (retry is safe).
    await expect(gateways[0]!.deletion.delete(ns, 'default', { thread_id: 'own-a', confirm_thread_id: 'own-a' })).rejects.toMatchObject({ code: 'unavailable' });
    await expect(gateways[1]!.unindexed.index()).rejects.toMatchObject({ code: 'unavailable' });
    expect(await liveRows(ns)).toEqual([]);

    reachable = true;
    const indexed = await gateways[1]!.unindexed.index();
    expect(indexed.written).toBeGreaterThanOrEqual(13);
    const rows = await liveRows(ns);
    expect(rows.map((r) => r.msg_id).sort()).toEqual([...sent.map((s) => s.req.msg_id!), 'raced'].sort());
    expect(rows.filter((r) => r.dims === 0 || r.model === '')).toEqual([]);
    expect(rows.find((r) => r.msg_id === 'a1')!.text).toBe('gateway a turn 1 about invoices');
    expect((await gateways[0]!.unindexed.index()).found).toBe(0);
    // Each turn is listed once, in the one order every reader sees.
    const listed = await Promise.all(gateways.map((g) => g.read.list(ns, 'default', { thread_id: 'shared', limit: 50 })));
    const ids = listed.map((l) => l.messages.map((m) => m.msg_id));
    expect(ids[0]).toHaveLength(7);
    expect(new Set(ids[0])).toEqual(new Set(['s0', 's1', 's2', 's3', 's4', 's5', 'raced']));
    expect(ids[1]).toEqual(ids[0]);
  });

  it('[issue 11: NATS outage] a turn deleted before the leases are back gets no live row; a placeholder landing after a newer write hides nothing', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    reachable = false;
    await gateways[0]!.append.append(ns, 'default', turn('t', 'gone', 'this turn is deleted before the sweep'));
    await gateways[0]!.append.append(ns, 'default', turn('t', 'kept', 'this turn stays'));
    // Another process, with the lease (a partition), tombstones the first turn.
    await tombstoneTurn(storage(), { namespace: ns, thread_id: 't', msg_id: 'gone' });
    reachable = true;
    await gateways[0]!.unindexed.index();
    expect((await liveRows(ns)).map((r) => r.msg_id)).toEqual(['kept']);
        // The cleared placeholder is not found again.
    expect((await gateways[0]!.unindexed.index()).found).toBe(0);

    // A gateway with the lease writes the vector; a late placeholder of an earlier, unfenced try of the same turn does not hide it.
    const fenced = await gateways[1]!.append.append(ns, 'default', turn('t', 'both', 'written by both gateways'));
    expect(fenced.stored).toBe(true);
    const stored = await storage().query<{ version: string }>(`SELECT toString(version) AS version FROM ${storage().tables.conversations} FINAL WHERE namespace = {ns:String} AND msg_id = 'both'`, { ns });
    const [live] = (await embeddingRows(storage(), ns)).filter((r) => r.msg_id === 'both');
    expect(live!.dims).toBeGreaterThan(0);
    await storage().insert(storage().tables.conversationEmbeddings, [
      unindexedPlaceholder(
        { namespace: ns, thread_id: 't', msg_id: 'both', agent: 'default', role: 'user', run_id: '', user_id: '', ts: '2026-01-01 00:00:00.000000', text: 'x', model: '', embedding: [], embed_error: '', is_summary: false, is_saved: false, saved_at: null, deleted: false, deleted_at: null, created_at: '2026-01-01 00:00:00.000', version: 0, lex_terms: [], lex_tfs: [], lex_len: 0 },
        Number(stored[0]!.version),
      ),
    ]);
    expect((await liveRows(ns)).map((r) => r.msg_id)).toEqual(['both', 'kept']);
  });
});
