import { ControllableProvider, embeddingRows as allEmbeddingRows, startTestLoom, tombstoneTurn, uniqueNamespace, type TestLoom } from '../../testing/src';
import type { Storage } from '@loom/clickhouse';

/** Live embedding rows (a tombstone is a row too). */
async function embeddingRows(storage: Storage, namespace: string) {
  const live = new Set(
    (await storage.query<{ msg_id: string }>(`SELECT msg_id FROM ${storage.tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND deleted = 0`, { ns: namespace })).map((r) => r.msg_id),
  );
  return (await allEmbeddingRows(storage, namespace)).filter((r) => live.has(r.msg_id));
}

describe('Re-embed (after an embedding provider switch)', () => {
  const provider = new ControllableProvider();
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom({ provider });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
    provider.received.length = 0;
  });
  afterAll(async () => loom.close());

  const storage = () => loom.gateway.runtime.storage;
  const reembed = (options: Record<string, unknown> = {}) => loom.gateway.runtime.plane.reembed.run({ namespace: ns, ...options });
  const search = (query: string) => loom.admin.ok('conversation.search', { namespace: ns, query, namespace_scope: 'namespace' });

  /** A turn as an earlier build (or an earlier provider) left it: transcript row plus an embedding row of `model`. */
  async function legacyTurn(msgId: string, content: string, embeddedText: string, model = 'old-model-3', extra: Record<string, unknown> = {}): Promise<void> {
    const at = '2026-11-29 12:00:00.000000';
    await storage().insert(storage().tables.conversations, [
      { namespace: ns, thread_id: 't', agent: 'default', msg_id: msgId, ts: at, role: 'user', content, created_at: at.slice(0, 23), version: 10 },
    ]);
    await storage().insert(storage().tables.conversationEmbeddings, [
      { namespace: ns, thread_id: 't', msg_id: msgId, agent: 'default', role: 'user', ts: at, text: embeddedText, model, embedding: [0.6, 0.8, 0], embed_error: '', created_at: at.slice(0, 23), version: 11, ...extra },
    ]);
  }

  it('CONV-EMBED-03: a re-embed takes its input from the embedding row\'s stored text, not the transcript row', async () => {
    const transcript = 'reconcile the ledger rounding before the tax export. '.repeat(60);
    const kept = transcript.slice(0, 2048);
    await legacyTurn('m1', transcript, kept);
    expect((await search('reconcile ledger rounding tax export')).hits).toEqual([]);
    const report = await reembed();
    expect(report).toMatchObject({ model: provider.model, total: 1, reembedded: 1, skipped: 0 });
    expect(provider.received).toContain(kept);
    expect(provider.received).not.toContain(transcript);
    const [row] = await embeddingRows(storage(), ns);
    expect(row).toMatchObject({ msg_id: 'm1', model: provider.model, dims: provider.dims, text: kept });
    // Vectors of the old model were never compared; the new vector is found again.
    expect((await search('reconcile ledger rounding tax export')).hits.map((h: { msg_id: string }) => h.msg_id)).toEqual(['m1']);
  });

  it('CONV-EMBED-04: a row an earlier build kept at 240 characters is re-embedded from those 240, not refilled to 2,048 from the transcript', async () => {
    const transcript = 'the flaky checkout test times out on the payment step. '.repeat(60);
    const legacy = transcript.slice(0, 240);
    await legacyTurn('m240', transcript, legacy);
    await reembed();
    expect(provider.received.filter((t) => t !== 'loom re-embed: which model answers')).toEqual([legacy]);
    const [row] = await embeddingRows(storage(), ns);
    expect(row!.text).toBe(legacy);
    expect(row!.text).toHaveLength(240);
  });

  it('leaves alone what it must: failed embeds are not retried, deleted turns stay deleted, high text is never sent, current-model rows are kept unless --all', async () => {
    await legacyTurn('failed', 'the embed of this one failed', 'the embed of this one failed', '', { embedding: [], embed_error: 'provider_failed: quota' });
    await legacyTurn('gone', 'a deleted turn about invoices', 'a deleted turn about invoices');
    await tombstoneTurn(storage(), { namespace: ns, thread_id: 't', msg_id: 'gone' }, loom.gateway.runtime.plane.fence);
    const secret = 'deploy with password=hunter2-but-longer please';
    await legacyTurn('high', secret, secret);
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'already on the current model', msg_id: 'current' });
    provider.received.length = 0;
    const report = await reembed();
    expect(report).toMatchObject({ total: 1, reembedded: 0, skipped: 1 });
    expect(provider.received.join('\n')).not.toContain('hunter2');
    const rows = await embeddingRows(storage(), ns);
    expect(rows.find((r) => r.msg_id === 'failed')).toMatchObject({ model: '', embed_error: 'provider_failed: quota' });
    expect(rows.find((r) => r.msg_id === 'gone')).toBeUndefined();
    expect(rows.find((r) => r.msg_id === 'high')).toMatchObject({ model: 'old-model-3' });
    provider.received.length = 0;
    const all = await reembed({ all: true });
    expect(all).toMatchObject({ total: 2, reembedded: 1, skipped: 1 });
    expect(provider.received).toContain('already on the current model');
  });

  it('a turn tombstoned while its batch is being embedded is not revived', async () => {
    await legacyTurn('racing', 'compaction will retire this turn', 'compaction will retire this turn');
    provider.hold();
    const called = provider.whenCalled();
    const run = reembed();
    await called; // the probe
    const batch = provider.whenCalled();
    provider.release();
    provider.hold();
    await batch;
    await tombstoneTurn(storage(), { namespace: ns, thread_id: 't', msg_id: 'racing' }, loom.gateway.runtime.plane.fence);
    provider.release();
    await expect(run).resolves.toMatchObject({ total: 1, reembedded: 0, skipped: 1 });
    expect(await embeddingRows(storage(), ns)).toEqual([]);
  });

  it('stops with a 503 that says what to do when the embedder is down, and writes nothing', async () => {
    await legacyTurn('m', 'a turn waiting for the new model', 'a turn waiting for the new model');
    provider.failing = true;
    try {
      await expect(reembed()).rejects.toMatchObject({ status: 503, message: expect.stringContaining('run the re-embed again') });
    } finally {
      provider.failing = false;
    }
    expect((await embeddingRows(storage(), ns))[0]).toMatchObject({ model: 'old-model-3' });
  });

  it('CONV-EMBED-08 [issue 11: ADR 0020]: turns whose embed was deferred because NATS was down get their vectors from embedDeferred; failed embeds stay failed', async () => {
    await legacyTurn('deferred', 'the nightly export moved to the ledger', 'the nightly export moved to the ledger', '', { embedding: [], embed_error: 'deferred_transport_down: the connection to NATS is down (reconnecting)' });
    await legacyTurn('failed', 'the nightly export failed on the ledger', 'the nightly export failed on the ledger', '', { embedding: [], embed_error: 'embedder_unavailable: no answer within 15000 ms' });
    const outcome = await loom.gateway.runtime.plane.reembed.embedDeferred();
    expect(outcome.written).toBe(1);
    const rows = new Map((await embeddingRows(storage(), ns)).map((r) => [r.msg_id, r]));
    expect(rows.get('deferred')).toMatchObject({ model: provider.model, embed_error: '' });
    expect(rows.get('failed')).toMatchObject({ embed_error: 'embedder_unavailable: no answer within 15000 ms' });
    expect((await loom.gateway.runtime.plane.reembed.embedDeferred()).found).toBe(0);
  });
});
