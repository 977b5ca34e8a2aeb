import { startEmbedder, startGateway } from '@loom/hosts';
import { loadConfig } from '@loom/platform';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReliabilitySection } from '../section';

/** An embedded Loom in this process (poison rows are put into its write path directly), and its admin's op call. */
async function startLoom(): Promise<{
  storage: Awaited<ReturnType<typeof startGateway>>['runtime']['storage'];
  call: (op: string, body: object) => Promise<{ status: number; body: any }>;
  get: (path: string) => Promise<number>;
  close: () => Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'loom-rel-poison-'));
  const adminToken = 'rel-admin-' + randomBytes(16).toString('hex');
  const config = loadConfig({
    LOOM_PORT: '0',
    LOOM_DATA_DIR: dataDir,
    LOOM_CLICKHOUSE_DATABASE: 'loom_rel_' + randomBytes(4).toString('hex'),
    LOOM_BOOTSTRAP_ADMIN_TOKEN: adminToken,
    LOOM_LOG_LEVEL: 'silent',
    LOOM_CONVERSATION_TITLER_INTERVAL_SECONDS: '86400',
  });
  const embedder = await startEmbedder(config);
  const gateway = await startGateway(config);
  return {
    storage: gateway.runtime.storage,
    call: async (op, body) => {
      const response = await fetch(`${gateway.url}/v1/ops/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    get: async (path) => (await fetch(`${gateway.url}${path}`)).status,
    close: async () => {
      await gateway.close();
      await embedder.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A transcript row as the append path writes it, with `extra` over it. */
function transcriptRow(i: number, version: number, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    thread_id: `t${i % 40}`,
    agent: 'default',
    msg_id: `m${i}`,
    ts: '2026-11-29 12:00:00.000000',
    role: 'user',
    content: `turn ${i}`,
    created_at: '2026-11-29 12:00:00.000',
    version,
    ...extra,
  };
}

/** Rows the storage engine refuses, as a value that slipped past validation would reach it. */
const POISONS: Array<{ name: string; fields: Record<string, unknown> }> = [
  { name: 'tokens 1e21', fields: { tokens: 1e21 } },
  { name: 'lone surrogate in content', fields: { content: 'half a pair \ud800 of a surrogate' } },
  { name: 'lone surrogate in reasoning', fields: { reasoning: 'half a pair \ud800' } },
];
/** Word-less turns: ordinary turns that once took Loom down (their hashed vector is all zeros). */
const WORDLESS = ['?', '👍', '...', ''];

/**
 * Appends a stream of turns through the API to an embedded Loom in this process, with poison
 * rows injected straight into the write path (below validation) and word-less turns mixed in,
 * then counts what is stored against what was acknowledged.
 */
export const section: ReliabilitySection = {
  id: 'poison-rows',
  title: 'Poison rows mid-load',
  proves:
    'A row the storage engine refuses, arriving in the middle of a stream of appends, is quarantined on its own: every acknowledged good turn is stored exactly once, Loom stays ready, and word-less turns are ordinary turns.',
  order: 20,
  async run(opts) {
    const total = opts.long ? 20_000 : 2_000;
    const poisonEvery = 50;
    const wordlessEvery = 37;
    const concurrency = 16;
    const loom = await startLoom();
    try {
      const ns = 'rel-poison';
      await loom.call('conversation.set_logging', { namespace: ns, enabled: true });
      const storage = loom.storage;
      const acknowledged = new Set<string>();
      const poisoned = new Map<string, string>();
      const failures = new Map<number, number>();
      let next = 0;
      let notReadySamples = 0;
      let samples = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          samples += 1;
          if ((await loom.get('/readyz')) !== 200) notReadySamples += 1;
          await new Promise((r) => setTimeout(r, 250));
        }
      })();
      const started = Date.now();
      let lastLog = started;
      const worker = async (): Promise<void> => {
        for (;;) {
          const i = next++;
          if (i >= total) return;
          const thread = `t${i % 40}`;
          if (i % poisonEvery === poisonEvery - 1) {
            const poison = POISONS[Math.floor(i / poisonEvery) % POISONS.length]!;
            const msgId = `p${i}`;
            await storage.insert(storage.tables.conversations, [transcriptRow(i, Date.now() * 1000 + i, { namespace: ns, thread_id: thread, msg_id: msgId, ...poison.fields })]);
            poisoned.set(msgId, poison.name);
            continue;
          }
          const content = i % wordlessEvery === 0 ? WORDLESS[(i / wordlessEvery) % WORDLESS.length]! : `turn ${i}: rotating the deploy credentials for service ${i % 13}`;
          const answer = await loom.call('conversation.append', { namespace: ns, thread_id: thread, role: i % 2 ? 'assistant' : 'user', content, msg_id: `m${i}` });
          if (answer.status === 200 && answer.body?.stored === true) acknowledged.add(`m${i}`);
          else failures.set(answer.status, (failures.get(answer.status) ?? 0) + 1);
          if (Date.now() - lastLog > 5_000) {
            lastLog = Date.now();
            opts.log(`poison-rows: ${i.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} sent`);
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, () => worker()));
      const seconds = (Date.now() - started) / 1000;
      sampling = false;
      await sampler;

      const stored = await storage.query<{ msg_id: string; n: string }>(
        `SELECT msg_id, count() AS n FROM ${storage.tables.conversations} WHERE namespace = {ns:String} GROUP BY msg_id`,
        { ns },
      );
      const copies = new Map(stored.map((r) => [r.msg_id, Number(r.n)]));
      const present = [...acknowledged].filter((id) => copies.has(id)).length;
      const duplicated = [...copies.values()].reduce((n, c) => n + (c > 1 ? c - 1 : 0), 0);
      const poisonStored = [...poisoned.keys()].filter((id) => copies.has(id)).length;
      const quarantinedKeys = await storage.query<{ row_key: string }>(
        `SELECT row_key FROM ${storage.tables.writeQuarantine} FINAL WHERE deleted = 0 AND table_name = {table:String} AND position(row_key, {ns:String}) > 0`,
        { table: storage.tables.conversations, ns: JSON.stringify(ns) },
      );
      const quarantinedIds = new Set(quarantinedKeys.map((r) => (JSON.parse(r.row_key) as { msg_id?: string }).msg_id));
      const poisonQuarantined = [...poisoned.keys()].filter((id) => quarantinedIds.has(id)).length;
      const readyAtEnd = (await loom.get('/readyz')) === 200;
      const byKind = POISONS.map((p) => {
        const ids = [...poisoned].filter(([, kind]) => kind === p.name).map(([id]) => id);
        return `| ${p.name} | ${ids.length} | ${ids.filter((id) => quarantinedIds.has(id)).length} |`;
      });
      const wordless = [...acknowledged].filter((id) => Number(id.slice(1)) % wordlessEvery === 0).length;
      const failed = [...failures].map(([status, n]) => `${n} × ${status}`).join(', ') || 'none';
      const n = (x: number) => x.toLocaleString('en-US');
      return [
        `${opts.long ? 'Full' : 'Quick'} run: ${n(total)} writes from ${concurrency} concurrent clients to an embedded Loom (hashed embedder), ` +
          `one in ${poisonEvery} a poison row put straight into the write path (below validation, as a value that slipped past it would arrive), ` +
          `and one in ${wordlessEvery} of the appends a word-less turn (${WORDLESS.map((w) => JSON.stringify(w)).join(', ')}).`,
        '',
        '| Figure | Value |',
        '|---|---|',
        `| Good turns acknowledged (\`stored: true\`) | ${n(acknowledged.size)} (${n(wordless)} of them word-less) |`,
        `| Acknowledged and present | ${n(present)} |`,
        `| Lost (acknowledged, not present) | ${n(acknowledged.size - present)} |`,
        `| Duplicated rows | ${n(duplicated)} |`,
        `| Poison rows acknowledged by the write path | ${n(poisoned.size)} |`,
        `| Poison rows quarantined | ${n(poisonQuarantined)} |`,
        `| Poison rows in the table (should be 0) | ${n(poisonStored)} |`,
        `| Appends not acknowledged | ${failed} |`,
        `| /readyz not ready during the run | ${n(notReadySamples)} of ${n(samples)} samples |`,
        `| /readyz at the end | ${readyAtEnd ? 'ready' : 'NOT READY'} |`,
        `| Throughput | ${n(Math.round(total / seconds))} writes/s over ${seconds.toFixed(1)} s |`,
        '',
        '| Poison | Sent | Quarantined |',
        '|---|---|---|',
        ...byKind,
      ].join('\n');
    } finally {
      await loom.close();
    }
  },
};
