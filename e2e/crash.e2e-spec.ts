import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestartableLoomUp, sleep, startOpenAiCompatibleServer, waitFor } from '../libs/testing/src';

const ADMIN = 'loom_crash_test_admin_token_0123456789abcdefghijk';
const THREADS = 8;

/**
 * Embedded Loom acknowledges an append once the turn is in its write-ahead log; the engine gets
 * it in the next shared insert. Killing the process (SIGKILL, no shutdown) in the middle of a
 * stream of appends must not lose or double any acknowledged turn.
 */
describe('embedded Loom killed mid-stream (write-ahead log)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loom-crash-'));
  const loomUp = new RestartableLoomUp(dataDir, ADMIN);
  afterAll(async () => {
    await loomUp.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = () => loomUp.start();

  it('CONV-APPEND-06: every append answered stored:true before a SIGKILL is stored exactly once after the restart', async () => {
    let api = await start();
    await api.ok('conversation.set_logging', { namespace: 'crash', enabled: true });
    const acknowledged = new Set<string>();
    let stop = false;
    let sent = 0;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i += 1) {
        const msgId = `w${w}-${i}`;
        sent += 1;
        const result = await api
          .call('conversation.append', { namespace: 'crash', thread_id: `t${i % THREADS}`, msg_id: msgId, role: i % 2 ? 'assistant' : 'user', content: `turn ${msgId} about the flaky deploy` })
          .catch(() => undefined);
        if (!result) return; // the process is gone
        if (result.status === 200 && result.body.stored === true) acknowledged.add(msgId);
        // A refusal under load (429, 503) is not the kill: the writer keeps writing, so that
        // appends are still in flight when the kill comes (a CI run whose writers had all stopped
        // on one found every acknowledged turn already flushed, and nothing to replay).
        else await sleep(20);
      }
    };
    const writers = Array.from({ length: 24 }, (_, w) => writer(w));
    // Killed mid-stream once enough appends were acknowledged: a fixed wait saw too few on a loaded machine.
    for (const deadline = Date.now() + 30_000; acknowledged.size <= 60 && Date.now() < deadline; ) await sleep(50);
    await sleep(200);
    loomUp.running().child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await loomUp.running().exited;
    expect(acknowledged.size).toBeGreaterThan(50);

    api = await start();
    // The kill caught acknowledged turns not yet in the engine: the restart replayed them from the log.
    const replay = loomUp.running().output().split('\n').find((l) => l.includes('replayed the write-ahead log'));
    expect(replay).toBeDefined();
    expect(JSON.parse(replay!).rows).toBeGreaterThan(0);
    const stored: string[] = [];
    for (let t = 0; t < THREADS; t += 1) {
      let cursor: string | undefined;
      do {
        const page = await api.ok('conversation.list', { namespace: 'crash', thread_id: `t${t}`, limit: 200, ...(cursor ? { cursor } : {}) });
        stored.push(...page.messages.map((m: { msg_id: string }) => m.msg_id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
    }
    const missing = [...acknowledged].filter((id) => !stored.includes(id));
    expect(missing).toEqual([]);
    expect(stored.length).toBe(new Set(stored).size);
    // Nothing was stored that was not sent.
    expect(stored.length).toBeLessThanOrEqual(sent);
    // Re-sending an acknowledged turn after the restart is still a duplicate (the key filter was rebuilt from storage).
    const again = await api.ok('conversation.append', { namespace: 'crash', thread_id: 't0', msg_id: [...acknowledged][0], role: 'user', content: 'again' });
    expect(again).toMatchObject({ stored: false, reason: 'duplicate' });
  });
});

/**
 * memory.set_from_messages(defer) answers before the extraction runs. Killing the process while
 * the model call is in flight must not lose the extraction: the next start runs it.
 */
describe('embedded Loom killed during a deferred extraction', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loom-crash-extraction-'));
  let loomUp: RestartableLoomUp | undefined;
  afterAll(async () => {
    await loomUp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an accepted deferred extraction cut short by a SIGKILL is run by the next start, and its facts land once', async () => {
    let answering = false;
    const llm = await startOpenAiCompatibleServer({
      chat: async () => {
        // Before the kill the model never answers: the call is in flight when the process dies.
        while (!answering) await sleep(50);
        return '- Invoices are stored in the ledger_v2 table.';
      },
    });
    loomUp = new RestartableLoomUp(dataDir, ADMIN, { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'facts', LOOM_CONVERSATION_TITLER_ENABLED: 'false' });
    const running = loomUp;
    const start = () => running.start();
    const loom = () => running.running();
    try {
      let api = await start();
      const messages = [
        { role: 'user', content: 'Where do invoices live now?' },
        { role: 'assistant', content: 'In the ledger_v2 table.' },
      ];
      const { extraction_id, deferred } = await api.ok('memory.set_from_messages', { namespace: 'crash', messages, defer: true });
      expect(deferred).toBe(true);
      await waitFor('the extraction call to reach the model', async () => llm.requests.some((r) => r.path.endsWith('/chat/completions')), { processes: [loom()] });
      loom().child.kill('SIGKILL');
      await loom().exited;

      answering = true;
      api = await start();
      const status = () => api.ok('memory.extraction_status', { namespace: 'crash', extraction_id });
      await waitFor('the extraction to finish after the restart', async () => (await status()).status === 'done', { processes: [loom()] });
      expect(await status()).toMatchObject({ status: 'done', facts: 1 });
      const hits = (await api.ok('memory.search', { namespace: 'crash', query: 'where are invoices stored ledger_v2' })).hits;
      expect(hits.map((h: { text: string }) => h.text)).toEqual(['Invoices are stored in the ledger_v2 table.']);
    } finally {
      answering = true;
      await llm.close();
    }
  });
});
