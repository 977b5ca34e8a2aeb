/**
 * Saved-message search lab (issue 10 item 6, ADR 0037): loads the bench's saved data (10,000
 * saved messages of one user over 2,000 conversations, 2 x 2,500 of two other users, 384-dim
 * hashed vectors), then times `SavedSearchService.search` in-process on chDB, without HTTP.
 *
 *   node dist/bench/src/lab/saved-lab.js load <dir>
 *   node dist/bench/src/lab/saved-lab.js measure <dir> [queries]
 *
 * `measure` times, in turn on the same data and process: this build ranking in memory (the
 * default budget), and, with LAB_MAIN_DIST=<another build's
 * dist>, that build's service; it checks first that the in-memory answers equal those of this
 * build with a budget of nothing (both legs in the engine, ADR 0024's statements). Each mode after
 * 10 warm-up queries; wall p50/p95 and process CPU p50 (chDB's threads included), the time per
 * statement kind, the cost of reading the corpus (whole, and after one save), and whether the
 * in-memory answers equal the engine's.
 */
import { execSync } from 'node:child_process';
import { join } from 'node:path';
import { runMigrations, Storage } from '@loom/clickhouse';
import { SavedCorpusCache, SavedSearchService } from '@loom/conversations';
import type { SearchSavedMessagesRequest, SearchSavedMessagesResponse } from '@loom/contracts';
import { settleMerges } from '../parts/search';
import { inProcessSearchDeps } from './in-process-search';
import { runRawJob } from '../raw/runner';
import type { SeedSavedResult } from '../raw/tasks';
import { startEmbeddedLoom } from '../topology/loom';
import { drive } from '../workload/driver';
import { TurnGenerator } from '../workload/text';
import { summarize } from '../util/stats';

const NAMESPACE = 'bench-saved';
const USER = 'bench-user';
const OTHER_USERS = ['other-a', 'other-b'];
const THREADS = 2_000;
const DATABASE = 'bench_saved';

/** As the bench's saved part: some saves through the API (its path, and the model), the rest seeded into the stopped directory. */
async function load(dir: string, perUser: number): Promise<void> {
  const first = await startEmbeddedLoom({ dataDir: dir, database: DATABASE, provider: 'hashed' });
  let saved = 0;
  try {
    const client = first.client(64);
    const gen = new TurnGenerator(31);
    const r = await drive({
      concurrency: 16,
      totalOps: 200,
      op: async (seq) => {
        const t = gen.int(THREADS);
        const res = await client.call<{ saved?: boolean }>('conversation.save_message', {
          namespace: NAMESPACE,
          user_id: USER,
          conversation_id: `c${t}`,
          message_id: `m${seq}`,
          role: gen.next() < 0.5 ? 'user' : 'assistant',
          content: gen.turn(t % TurnGenerator.topicCount).content,
        });
        return res.status === 200 && res.body.saved ? { ok: true } : { ok: false, error: `${res.status}` };
      },
    });
    saved = r.ok;
    client.close();
  } finally {
    await first.close();
  }
  const [seeded] = await runRawJob<[SeedSavedResult]>('seed-saved', {
    target: { chdbPath: join(dir, 'chdb') },
    tasks: [
      {
        kind: 'seed-saved',
        loomDatabase: DATABASE,
        namespace: NAMESPACE,
        owners: [{ user: USER, count: perUser - saved }, ...OTHER_USERS.map((user) => ({ user, count: perUser / 4 }))],
        threads: THREADS,
        seed: 31,
      },
    ],
  });
  console.log(`saved ${saved} through the API, seeded ${seeded.inserted}`);
  const loom = await startEmbeddedLoom({ dataDir: dir, database: DATABASE, provider: 'hashed' });
  try {
    const client = loom.client(8);
    console.log(JSON.stringify(await settleMerges(client)));
    client.close();
  } finally {
    await loom.close();
  }
  execSync('sync');
}

interface Searcher {
  search(namespace: string, userId: string, input: SearchSavedMessagesRequest): Promise<SearchSavedMessagesResponse>;
}

async function measure(dir: string, count: number): Promise<void> {
  const storage = Storage.open({ database: DATABASE, dataDir: dir });
  await runMigrations(storage);
  const { embedder, settings } = inProcessSearchDeps();
  const spent = new Map<string, number[]>();
  const kindOf = (sql: string): string =>
    /max\(version\)/.test(sql)
      ? 'signature'
      : /cosineDistance/.test(sql)
        ? 'vector'
        : /sum\(idf/.test(sql)
          ? 'bm25'
          : /any\(tf\)/.test(sql)
            ? 'postings'
            : /groupArray\(term\)/.test(sql)
              ? 'complete postings'
            : /FINAL WHERE/.test(sql)
              ? 'live'
              : /AS f32 FROM/.test(sql)
                ? 'vectors'
                : /LIMIT 1 BY thread_id, agent, msg_id, version/.test(sql)
                  ? 'texts'
                  : /LIMIT 1 BY thread_id, agent, msg_id/.test(sql)
                    ? 'rows'
                    : 'other';
  const query = storage.query.bind(storage);
  (storage as { query: typeof storage.query }).query = async <T>(sql: string, params?: Record<string, unknown>): Promise<T[]> => {
    const t = performance.now();
    try {
      return await query<T>(sql, params);
    } finally {
      const k = kindOf(sql);
      spent.set(k, [...(spent.get(k) ?? []), performance.now() - t]);
    }
  };

  // The corpus read: whole (cold), and after one save (the delta of one vector).
  const cache = new SavedCorpusCache(storage);
  const scope = { ns: NAMESPACE, user: USER };
  const heap = process.memoryUsage();
  let t = performance.now();
  await cache.refresh(scope, []);
  // Vectors and complete postings load in the background after a first read (ADR 0037).
  await cache.settled();
  const full = performance.now() - t;
  const corpus = cache.cached(scope)!;
  const after = process.memoryUsage();
  // As if the newest message had just been saved: the next read lacks only its vector.
  const newest = [...corpus.live].reduce((a, b) => (BigInt(b[1]) > BigInt(a[1]) ? b : a))[0];
  corpus.vectors!.delete(newest);
  t = performance.now();
  await cache.refresh(scope, []);
  console.log(
    `corpus: ${corpus.live.size} live, ${cache.held().vectors} vectors, ${cache.held().postings} postings held (complete: ${corpus.complete}); read whole ${full.toFixed(1)} ms, after one save ${(performance.now() - t).toFixed(1)} ms; ` +
      `heap +${((after.heapUsed - heap.heapUsed) / 2 ** 20).toFixed(1)} MB, array buffers +${((after.arrayBuffers - heap.arrayBuffers) / 2 ** 20).toFixed(1)} MB`,
  );
  spent.clear();

  // A first search of a fresh service and its background reads: vectors, postings, and the rows
  // searches show (ADR 0037 addendum 3), whose pages are the combined rows-and-signature statement.
  const filling = new SavedSearchService(storage, embedder, settings);
  t = performance.now();
  await filling.search(NAMESPACE, USER, { namespace: NAMESPACE, user_id: USER, query: 'first search', limit: 10 } as SearchSavedMessagesRequest);
  const firstMs = performance.now() - t;
  await filling.settled();
  const statementsOf = () => [...spent].map(([k, v]) => `${k} ${summarize(v).p50} p50, ${summarize(v).max} max (${v.length})`).join('; ');
  console.log(
    `first search ${firstMs.toFixed(1)} ms; its background reads end ${(performance.now() - t).toFixed(1)} ms after it began; rows held: ${JSON.stringify(filling.heldTexts())}; statements: ${statementsOf()}`,
  );
  spent.clear();

  const variants: Array<[string, Searcher]> = [
    ['memory', new SavedSearchService(storage, embedder, settings)],
  ];
  // Both legs in the engine (ADR 0024's warm path): for the equality check only.
  const engine = new SavedSearchService(storage, embedder, settings, { maxVectors: 0, maxPostings: 0 });
  const mainDist = process.env['LAB_MAIN_DIST'];
  if (mainDist) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- another build's module, named at run time
    const { SavedSearchService: Main } = require(join(mainDist, 'libs/conversations/src/saved/saved-search.service.js')) as { SavedSearchService: new (...args: unknown[]) => Searcher };
    variants.push(['main', new Main(storage, embedder, settings)]);
  }
  const gen = new TurnGenerator(7373);
  const queries = Array.from({ length: count }, (_, i) => gen.query(i % TurnGenerator.topicCount));
  const ask = (s: Searcher, q: string, extra: Partial<SearchSavedMessagesRequest> = {}) =>
    s.search(NAMESPACE, USER, { namespace: NAMESPACE, user_id: USER, query: q, limit: 10, ...extra } as SearchSavedMessagesRequest);

  // Same answers? (ids in order, scores within 1e-6)
  for (const mode of ['hybrid', 'lexical', 'semantic'] as const) {
    let same = 0;
    for (const q of queries.slice(0, 20)) {
      const [a, b] = [await ask(variants[0]![1], q, { search_mode: mode }), await ask(engine, q, { search_mode: mode })];
      if (a.hits.length === b.hits.length && a.hits.every((h, i) => h.message_id === b.hits[i]!.message_id && Math.abs(h.score - b.hits[i]!.score) < 1e-6)) same += 1;
    }
    console.log(`${mode}: memory and engine answer the same for ${same}/20 queries`);
  }

  const run = async (name: string, s: Searcher, mode: string, scoped: boolean): Promise<void> => {
    const n = scoped ? Math.min(count, 50) : count;
    const args = (i: number) => ({ search_mode: mode, ...(scoped ? { conversation_id: `c${(i * 37) % THREADS}` } : {}) }) as Partial<SearchSavedMessagesRequest>;
    for (let i = 0; i < 10; i += 1) await ask(s, queries[i]!, args(i));
    spent.clear();
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < n; i += 1) {
      const c = process.cpuUsage();
      const w = performance.now();
      await ask(s, queries[i]!, args(i));
      wall.push(performance.now() - w);
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
    }
    const ws = summarize(wall);
    const parts = [...spent].map(([k, v]) => `${k} ${summarize(v).p50} (${v.length})`).join(', ');
    console.log(`${name} ${mode}${scoped ? ' in one conversation' : ''}: wall p50 ${ws.p50} p95 ${ws.p95} ms, CPU p50 ${summarize(cpu).p50} ms; statements p50: ${parts}`);
  };
  const rounds = Number(process.env['LAB_ROUNDS'] ?? 2);
  for (let round = 1; round <= rounds; round += 1) {
    for (const [name, s] of variants) {
      for (const mode of ['hybrid', 'lexical', 'semantic']) await run(name, s, mode, false);
      await run(name, s, 'hybrid', true);
    }
  }
  await storage.close();
}

const [cmd, dir, arg] = process.argv.slice(2);
(cmd === 'load' ? load(dir!, Number(arg ?? 10_000)) : measure(dir!, Number(arg ?? 60))).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
