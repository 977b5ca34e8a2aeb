import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '@loom/platform';
import { embeddingRows, startTestLoom, transcriptRow, uniqueNamespace, type TestLoom } from '../../testing/src';

const CLI = resolve(__dirname, '..', '..', '..', 'dist', 'apps', 'cli', 'src', 'main.js');
const run = promisify(execFile);

/** Polls until `check` holds (the write-behind flushes and retries on its own clock). */
async function eventually(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('nothing a client sends stops Loom: word-less turns, out-of-range numbers, lone surrogates, poison rows (issue 9)', () => {
  let loom: TestLoom;
  const logLines: string[] = [];
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom({ logger: createLogger('gateway', 'info', { write: (line: string) => void logLines.push(line) }) });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => loom.close());
  const storage = () => loom.gateway.runtime.storage;
  const append = (body: Record<string, unknown>) => loom.admin.call('conversation.append', { namespace: ns, thread_id: 't', role: 'user', ...body });

  /** Loom still serves: ready, a new turn is stored, and it is found by search. */
  async function stillServes(): Promise<void> {
    expect((await loom.admin.get('/readyz')).status).toBe(200);
    const word = `zebra${Math.random().toString(36).slice(2, 8)}`;
    expect((await append({ content: `the ${word} crossed the rotated credentials`, msg_id: `after-${word}` })).body).toMatchObject({ stored: true });
    const found = await loom.admin.ok('conversation.search', { namespace: ns, query: `${word} rotated credentials`, namespace_scope: 'namespace' });
    expect(found.hits.map((h: { msg_id: string }) => h.msg_id)).toContain(`after-${word}`);
    expect((await loom.admin.call('conversation.list', { namespace: ns, thread_id: 't' })).status).toBe(200);
  }

  it.each([['?'], ['👍'], ['...'], ['']])(
    'CONV-EMBED-07/08 [issue 9: wordless turn] a user turn of %j is stored, keeps an embedding row with no vector (embed_error no_vector), is found by the substring match, and Loom keeps serving',
    async (content) => {
      const answer = await append({ content, msg_id: 'wordless' });
      expect(answer).toMatchObject({ status: 200, body: { stored: true } });
      const listed = await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 't' });
      expect(listed.messages.map((m: { content: string }) => m.content)).toEqual([content]);
      const [row] = await embeddingRows(storage(), ns);
      expect(row).toMatchObject({ msg_id: 'wordless', dims: 0, model: '', embed_error: expect.stringMatching(/^no_vector: a zero vector/) });
      if (content !== '') {
        // In vector mode a query with nothing to embed is answered by the substring match, which
        // finds the turn. Hybrid and lexical answer such a query with no hits (issue 10; see
        // docs/spec-decisions.md).
        const found = await loom.admin.ok('conversation.search', { namespace: ns, query: content, namespace_scope: 'namespace', search_mode: 'vector' });
        expect(found).toMatchObject({ mode: 'substring', hits: [{ msg_id: 'wordless', excerpt: content }] });
        expect(await loom.admin.ok('conversation.search', { namespace: ns, query: content, namespace_scope: 'namespace', search_mode: 'hybrid' })).toEqual({ mode: 'hybrid', hits: [] });
      }
      await stillServes();
    },
  );

  it('CONV-APPEND-02 [issue 9: tokens 1e21] tokens of 1e21 are refused with a 400 naming tokens, or stored without the row (quarantined): never a 500, and Loom keeps serving', async () => {
    const answer = await append({ content: 'a turn with absurd token count', tokens: 1e21, msg_id: 'huge-tokens' });
    expect([200, 400]).toContain(answer.status);
    if (answer.status === 400) expect(JSON.stringify(answer.body)).toContain('tokens');
    await stillServes();
  });

  it.each([
    ['content', { content: 'half a pair \ud800 here', msg_id: 'lone-content' }],
    ['reasoning', { content: 'fine text', reasoning: 'half a pair \ud800', msg_id: 'lone-reasoning' }],
    ['msg_id', { content: 'fine text again', msg_id: 'lone\ud800' }],
  ])('CONV-APPEND-02 [issue 9: lone surrogate] a lone surrogate in %s is refused with a 400 or quarantined, never a 500, and Loom keeps serving', async (field, body) => {
    const answer = await append(body);
    expect([200, 400]).toContain(answer.status);
    if (answer.status === 400) expect(JSON.stringify(answer.body)).toContain(field);
    await stillServes();
  });

  it('SAVE [issue 9: lone surrogate] conversation.save_message with a lone surrogate while recording is off is refused with a 400 or quarantined, never a 500, and Loom keeps serving', async () => {
    const off = uniqueNamespace();
    const answer = await loom.admin.call('conversation.save_message', {
      namespace: off,
      user_id: 'u1',
      conversation_id: 't',
      message_id: 'm1',
      role: 'assistant',
      content: 'half a pair \ud800 saved',
    });
    expect([200, 400]).toContain(answer.status);
    await stillServes();
  });

  it('[issue 9: poison row] a row the engine refuses (injected below validation) is quarantined: the log names its key, never its text; loom_write_quarantined_total counts it; quarantine.list/retry/drop handle it', async () => {
    const { tables } = storage();
    const poison = transcriptRow(1, Date.now() * 1000, { namespace: ns, msg_id: 'poison-1', content: 'secret words of the poison row', tokens: 1e21 });
    const good = transcriptRow(2, Date.now() * 1000 + 1, { namespace: ns, msg_id: 'good-2' });
    await Promise.all([storage().insert(tables.conversations, [poison]), storage().insert(tables.conversations, [good])]);
    await storage().settled();
    const listed = await loom.admin.ok('quarantine.list', {});
    const entry = listed.rows.find((r: { key: string }) => r.key.includes('poison-1'));
    expect(entry).toMatchObject({ table: tables.conversations, attempts: 1, error: expect.stringMatching(/parse/i) });
    expect(entry.row).toBeUndefined();
    expect(JSON.parse((await loom.admin.ok('quarantine.list', { include_rows: true })).rows.find((r: { id: string }) => r.id === entry.id).row)).toMatchObject({ msg_id: 'poison-1' });
    // The good row of the same flush is stored.
    const turns = await loom.admin.ok('conversation.list', { namespace: ns, thread_id: good['thread_id'] as string });
    expect(turns.messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['good-2']);
    const line = logLines.find((l) => l.includes('quarantined') && l.includes('poison-1'));
    expect(line).toBeDefined();
    expect(line).not.toContain('secret words');
    // The engine quotes the data it could not parse; the quote is cut from the stored and logged error.
    expect(line).not.toContain('is_high');
    expect(entry.error).not.toContain('is_high');
    expect((await loom.admin.get('/metrics')).text).toMatch(new RegExp(`loom_write_quarantined_total\\{table="${tables.conversations}"[^}]*\\} [1-9]`));

    // Deployment-wide: a namespace's admin and a writer are refused.
    expect((await (await loom.as(ns, 'admin')).call('quarantine.list', { namespace: ns })).status).toBe(403);
    expect((await (await loom.as(ns, 'writer')).call('quarantine.retry', { namespace: ns, ids: [entry.id] })).status).toBe(403);
    expect((await loom.admin.call('quarantine.drop', { ids: ['not-an-id'] })).status).toBe(400);

    expect(await loom.admin.ok('quarantine.retry', { ids: [entry.id] })).toEqual({ results: [{ id: entry.id, outcome: 'refused', error: expect.stringMatching(/parse/i) }] });
    expect((await loom.admin.ok('quarantine.list', {})).rows.find((r: { id: string }) => r.id === entry.id).attempts).toBe(2);
    expect(await loom.admin.ok('quarantine.drop', { ids: [entry.id] })).toEqual({ results: [{ id: entry.id, outcome: 'dropped' }] });
    expect((await loom.admin.ok('quarantine.list', {})).rows.map((r: { id: string }) => r.id)).not.toContain(entry.id);
    await stillServes();
  });

  it('CONV-RET-08 [issue 9: poison row] a person\'s erasure also removes their quarantined rows, and a namespace erasure the namespace\'s; other rows stay', async () => {
    const { tables } = storage();
    const version = Date.now() * 1000;
    const other = uniqueNamespace();
    await storage().insert(tables.conversations, [
      transcriptRow(1, version, { namespace: ns, msg_id: 'q-erase-u1', user_id: 'u-erased', content: 'words of the person erased', tokens: 1e21 }),
      transcriptRow(2, version + 1, { namespace: ns, msg_id: 'q-keep-u2', user_id: 'u-kept', tokens: 1e21 }),
      transcriptRow(3, version + 2, { namespace: other, msg_id: 'q-other-ns', user_id: 'u-erased', tokens: 1e21 }),
    ]);
    await storage().settled();
    const keys = async () => (await loom.admin.ok('quarantine.list', { limit: 1000 })).rows.map((r: { key: string }) => r.key).join(' ');
    for (const id of ['q-erase-u1', 'q-keep-u2', 'q-other-ns']) expect(await keys()).toContain(id);

    expect(await loom.admin.ok('erasure.request', { namespace: ns, user_id: 'u-erased' })).toMatchObject({ status: 'done' });
    const afterPerson = await keys();
    expect(afterPerson).not.toContain('q-erase-u1');
    expect(afterPerson).toContain('q-keep-u2');
    // The admin token covers every namespace, so the person's erasure reaches the other namespace too.
    expect(afterPerson).not.toContain('q-other-ns');

    expect(await loom.admin.ok('erasure.request', { namespace: ns, namespace_list: [ns] })).toMatchObject({ status: 'done' });
    expect(await keys()).not.toContain('q-keep-u2');
    await stillServes();
  });

  it('[issue 9: quarantine CLI] loom quarantine list, retry and drop work through the gateway as a separate process', async () => {
    if (!existsSync(CLI)) throw new Error('dist/apps/cli is missing: run `npm run build` first');
    const { tables } = storage();
    const version = Date.now() * 1000;
    await storage().insert(tables.conversations, [
      transcriptRow(1, version, { namespace: ns, msg_id: 'cli-retry', tokens: 1e21 }),
      transcriptRow(2, version + 1, { namespace: ns, msg_id: 'cli-drop', content: 'cli-secret-words \ud800' }),
    ]);
    await storage().settled();
    const dataDir = mkdtempSync(join(tmpdir(), 'loom-cli-'));
    const cli = (...args: string[]) =>
      run(process.execPath, [CLI, 'quarantine', ...args, '--url', loom.url, '--token', loom.admin.token], { env: { ...process.env, LOOM_DATA_DIR: dataDir }, timeout: 30_000 });
    try {
      const listed = JSON.parse((await cli('list', '--json')).stdout) as { rows: Array<{ id: string; key: string }> };
      const retryId = listed.rows.find((r) => r.key.includes('cli-retry'))!.id;
      const dropId = listed.rows.find((r) => r.key.includes('cli-drop'))!.id;
      const text = (await cli('list')).stdout;
      expect(text).toContain(retryId);
      expect(text).not.toContain('cli-secret-words');
      // Refused again: the command says so and exits non-zero.
      await expect(cli('retry', retryId)).rejects.toMatchObject({ code: 1, stdout: expect.stringContaining(`${retryId}: refused`) });
      // The operator widens the column; the retry now stores the row.
      await storage().command(`ALTER TABLE ${tables.conversations} MODIFY COLUMN tokens Nullable(Float64)`);
      expect((await cli('retry', retryId)).stdout).toContain(`${retryId}: stored`);
      expect((await cli('drop', dropId)).stdout).toContain(`${dropId}: dropped`);
      const after = JSON.parse((await cli('list', '--json')).stdout) as { rows: Array<{ id: string }> };
      expect(after.rows.map((r) => r.id)).not.toEqual(expect.arrayContaining([retryId]));
      expect(after.rows.map((r) => r.id)).not.toEqual(expect.arrayContaining([dropId]));
      const turns = await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 't1' });
      expect(turns.messages.map((m: { msg_id: string }) => m.msg_id)).toEqual(['cli-retry']);
    } finally {
      await storage().command(`ALTER TABLE ${tables.conversations} MODIFY COLUMN tokens Nullable(UInt32)`).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('[issue 9: readyz] /readyz is false with the reason while acknowledged writes cannot reach storage, nothing is quarantined meanwhile, and it is true again once they land', async () => {
    const { tables } = storage();
    await storage().command(`DETACH TABLE ${tables.conversationEmbeddings}`);
    try {
      expect((await append({ content: 'written while storage refuses the embeddings table', msg_id: 'during-outage' })).body).toMatchObject({ stored: true });
      await eventually(async () => (await loom.admin.get('/readyz')).status === 503, '/readyz to fail');
      const ready = JSON.parse((await loom.admin.get('/readyz')).text);
      expect(ready).toMatchObject({ status: 'not_ready', checks: { storage: true, writes: false }, reasons: { writes: expect.stringContaining('conversation_embeddings') } });
    } finally {
      await storage().client.command({ query: `ATTACH TABLE ${tables.conversationEmbeddings}` });
    }
    await eventually(async () => (await loom.admin.get('/readyz')).status === 200, '/readyz to recover');
    const listed = await loom.admin.ok('quarantine.list', {});
    expect(listed.rows.map((r: { key: string }) => r.key).join(' ')).not.toContain('during-outage');
    expect((await embeddingRows(storage(), ns)).map((r) => r.msg_id)).toEqual(['during-outage']);
    await stillServes();
  });
});
