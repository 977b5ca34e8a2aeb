import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestartableLoomUp } from '../libs/testing/src';

const ADMIN = 'loom_poison_test_admin_token_0123456789abcdefghijk';

const row = (msgId: string, extra: Record<string, unknown> = {}) => ({
  namespace: 'poison',
  thread_id: 't',
  agent: 'default',
  msg_id: msgId,
  ts: '2026-11-29 12:00:00.000000',
  role: 'user',
  content: `turn ${msgId}`,
  created_at: '2026-11-29 12:00:00.000',
  version: 1_796_000_000_000_000 + Number(msgId.replace(/\D/g, '') || 0),
  ...extra,
});
const embedding = (msgId: string, extra: Record<string, unknown> = {}) => ({
  namespace: 'poison',
  thread_id: 't',
  msg_id: msgId,
  agent: 'default',
  role: 'user',
  run_id: '',
  user_id: '',
  ts: '2026-11-29 12:00:00.000000',
  text: '?',
  model: 'hashed-v1-384',
  embedding: new Array(384).fill(0),
  embed_error: '',
  created_at: '2026-11-29 12:00:00.000',
  version: 1_796_000_000_000_100,
  ...extra,
});

/**
 * The restart: a write-ahead log left by a stop holds rows the engine refuses (a zero
 * vector the old Int8 copy divided by, tokens 1e21, a lone surrogate). `loom up` must start,
 * store the good rows, and quarantine the refused ones, instead of exiting on the first.
 */
describe('embedded Loom restarted on a write-ahead log that holds poison rows (issue 9)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loom-poison-'));
  const loomUp = new RestartableLoomUp(dataDir, ADMIN);
  afterAll(async () => {
    await loomUp.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = () => loomUp.start();

  it('CONV-APPEND-06 [issue 9: replay] the restart replays the log without exiting: good rows stored once, poison rows quarantined and named by key in the log', async () => {
    let api = await start();
    await api.ok('conversation.set_logging', { namespace: 'poison', enabled: true });
    await loomUp.running().stop();

    // What a stop left behind: one segment holding good and poison rows of both append tables.
    const walDir = join(dataDir, 'wal', 'loom');
    mkdirSync(walDir, { recursive: true });
    const entries = [
      { table: 'loom.conversations', rows: [row('m1'), row('m2', { tokens: 1e21 }), row('m3', { content: 'half a pair \ud800 kept out of logs' })] },
      { table: 'loom.conversations', rows: [row('m4', { content: '?' })] },
      { table: 'loom.conversation_embeddings', rows: [embedding('m4'), embedding('m5', { text: 'lone \ud800 text', version: 1_796_000_000_000_101 })] },
    ];
    writeFileSync(join(walDir, '000000000042.jsonl'), entries.map((e) => JSON.stringify(e)).join('\n') + '\n');

    api = await start();
    expect(loomUp.running().child.exitCode).toBeNull();
    const replay = loomUp.running().output().split('\n').find((l) => l.includes('replayed the write-ahead log'));
    expect(JSON.parse(replay!)).toMatchObject({ segments: 1, rows: 6, quarantined: 3 });
    const quarantinedLines = loomUp.running().output().split('\n').filter((l) => l.includes('quarantined'));
    expect(quarantinedLines.join('\n')).toMatch(/"msg_id\\":\\"m2\\"/);
    expect(quarantinedLines.join('\n')).not.toContain('kept out of logs');

    const listed = await api.ok('conversation.list', { namespace: 'poison', thread_id: 't' });
    expect(listed.messages.map((m: { msg_id: string }) => m.msg_id).sort()).toEqual(['m1', 'm4']);
    const quarantine = await api.ok('quarantine.list', {});
    expect(quarantine.rows.map((r: { key: string }) => JSON.parse(r.key).msg_id).sort()).toEqual(['m2', 'm3', 'm5']);
    expect((await api.get('/readyz')).status).toBe(200);
    // Loom keeps taking turns.
    expect(await api.ok('conversation.append', { namespace: 'poison', thread_id: 't', role: 'user', content: 'after the restart', msg_id: 'm6' })).toMatchObject({ stored: true });
  });
});
