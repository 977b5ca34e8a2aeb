import { InMemoryLeaseManager } from '@loom/leases';
import { formatMillis } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';
import { AppendTurnRequest } from '@loom/contracts';
import { InProcessRequestClient } from '@loom/transport';
import { createConversationPlane, StorageCheckedFence } from './index';
import { ControllableProvider, countRows, embeddingRows, startTestLoom, tombstoneTurn, uniqueNamespace, type TestLoom } from '../../testing/src';

describe('Recording switch', () => {
  const provider = new ControllableProvider();
  let loom: TestLoom;
  beforeAll(async () => {
    loom = await startTestLoom({ provider });
  });
  afterAll(async () => loom.close());
  const storage = () => loom.gateway.runtime.storage;

  it('CONV-REC-01: a namespace row whose conversation_logging_enabled was never set does not record', async () => {
    const ns = uniqueNamespace();
    // A row written without the flag takes the column default (off).
    await storage().command(`INSERT INTO ${storage().tables.namespaces} (namespace, updated_at, version) VALUES ({ns:String}, {at:String}, {v:UInt64})`, {
      ns,
      at: formatMillis(),
      v: nextVersion(),
    });
    const result = await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'hi' });
    expect(result).toMatchObject({ stored: false, reason: 'logging_disabled' });
    expect(await countRows(storage(), 'conversations', { namespace: ns }, false)).toBe(0);
  });

  it('CONV-REC-02: a namespace with no loom.namespaces row at all fails closed', async () => {
    const ns = uniqueNamespace();
    expect(await countRows(storage(), 'conversations', { namespace: ns })).toBe(0);
    const result = await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'assistant', content: 'hi' });
    expect(result).toEqual({ stored: false, reason: 'logging_disabled', thread_id: 't', msg_id: expect.any(String) });
  });

  it('CONV-REC-03: set_logging needs admin; a writer or viewer is refused and the flag stays as it was', async () => {
    const ns = uniqueNamespace();
    for (const role of ['writer', 'viewer'] as const) {
      const api = await loom.as(ns, role);
      const refused = await api.call('conversation.set_logging', { enabled: true });
      expect(refused.status).toBe(403);
    }
    expect(await countRows(storage(), 'conversations', { namespace: ns })).toBe(0);
    const writer = await loom.as(ns, 'writer');
    expect((await writer.ok('conversation.append', { thread_id: 't', role: 'user', content: 'still off' })).reason).toBe('logging_disabled');
    const admin = await loom.as(ns, 'admin');
    expect(await admin.ok('conversation.set_logging', { enabled: true })).toEqual({ namespace: ns, conversation_logging_enabled: true });
    expect((await writer.ok('conversation.append', { thread_id: 't', role: 'user', content: 'now on' })).stored).toBe(true);
  });

  it('CONV-REC-06: the refused append is an ordinary successful call (200, no error body)', async () => {
    const result = await loom.admin.call('conversation.append', { namespace: uniqueNamespace(), thread_id: 't', role: 'user', content: 'hi' });
    expect(result.status).toBe(200);
    expect(result.body.error).toBeUndefined();
    expect(result.body.stored).toBe(false);
  });

  it('CONV-REC-07: no append input can force storage while recording is off', async () => {
    const ns = uniqueNamespace();
    const attempts = [
      { metadata: { force: true, conversation_logging_enabled: true } },
      { run_id: 'run-1', user_id: 'u1', tokens: 99, msg_id: 'm1', reasoning: 'r' },
      { agent: 'other-agent' },
    ];
    for (const extra of attempts) {
      const result = await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'x', ...extra });
      expect(result).toMatchObject({ stored: false, reason: 'logging_disabled' });
    }
    // A field the op does not know is refused outright rather than ignored.
    const unknown = await loom.admin.call('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'x', conversation_logging_enabled: true });
    expect(unknown.status).toBe(400);
    expect(await countRows(storage(), 'conversations', { namespace: ns }, false)).toBe(0);
  });

  it('CONV-REC-09: a turn removed while its embedding runs gets no vector and the append answers stored:false "deleted"', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    provider.hold();
    const called = provider.whenCalled();
    const pending = loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'soon removed', msg_id: 'm-del' });
    try {
      await called; // the transcript row is written and the embed is in flight
      await tombstoneTurn(storage(), { namespace: ns, thread_id: 't', msg_id: 'm-del' }, loom.gateway.runtime.plane.fence);
    } finally {
      provider.release();
    }
    expect(await pending).toEqual({ stored: false, reason: 'deleted', thread_id: 't', msg_id: 'm-del' });
    expect(await embeddingRows(storage(), ns)).toEqual([]);
    expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 't' })).messages).toEqual([]);
  });

  it('CONV-REC-09 with the storage-checked fence of the split topology: a tombstone no fence saw is still caught by the re-read', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    const plane = createConversationPlane({
      storage: storage(),
      requests: new InProcessRequestClient(),
      embedTimeoutMs: 5_000,
      defaults: { searchExcerptChars: 240, searchMinSimilarity: 0.3 },
      batching: { lingerMs: 0, maxRows: 100 },
      fence: new StorageCheckedFence(),
      leases: new InMemoryLeaseManager(),
    });
    provider.hold();
    const called = provider.whenCalled();
    const pending = plane.append.append(ns, 'default', Object.assign(new AppendTurnRequest(), { thread_id: 't', role: 'user', content: 'removed by another process', msg_id: 'm-x' }));
    try {
      await called;
      await tombstoneTurn(storage(), { namespace: ns, thread_id: 't', msg_id: 'm-x' }); // no fence: another process did it
    } finally {
      provider.release();
    }
    expect(await pending).toEqual({ stored: false, reason: 'deleted', thread_id: 't', msg_id: 'm-x' });
    expect(await embeddingRows(storage(), ns)).toEqual([]);
  });

  it('CONV-REC-12 AMBIGUOUS(thread shell): a refused append in a fresh namespace creates no thread either', async () => {
    const ns = uniqueNamespace();
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 'shell', role: 'user', content: 'x' });
    expect((await loom.admin.ok('conversation.threads', { namespace: ns })).threads).toEqual([]);
    expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'shell' })).status).toBe(404);
  });

  it('AMBIGUOUS(create while off): conversation.create keeps nothing while recording is off and says why', async () => {
    const ns = uniqueNamespace();
    const created = await loom.admin.ok('conversation.create', { namespace: ns, thread_id: 'pre', title: 'Ledger work' });
    expect(created).toEqual({ created: false, reason: 'logging_disabled', thread_id: 'pre' });
    expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'pre' })).status).toBe(404);
  });

  it('turning recording off again stops new turns and keeps the ones already stored', async () => {
    const ns = uniqueNamespace();
    await loom.record(ns);
    await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'kept' });
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: false });
    expect((await loom.admin.ok('conversation.append', { namespace: ns, thread_id: 't', role: 'user', content: 'not kept' })).reason).toBe('logging_disabled');
    const listed = await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 't' });
    expect(listed.messages.map((m: { content: string }) => m.content)).toEqual(['kept']);
  });
});
