/**
 * Hybrid search lab (issue 10): loads a namespace like the bench's search part, then times
 * `SearchService.search` and its statements in-process on chDB, without HTTP, so a change to the
 * lexical or neighbour statements can be compared with the previous ones on the same data.
 *
 *   node dist/bench/src/lab/hybrid-lab.js load <dir> <turns>
 *   node dist/bench/src/lab/hybrid-lab.js measure <dir> [queries]
 *   node dist/bench/src/lab/hybrid-lab.js first <dir>        (the first search of a cold namespace)
 */
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { formatMicros, runMigrations, Storage } from '@loom/clickhouse';
import { bm25ScoringStatement, Bm25Statistics, KeptPostings, KeptVectors, queryTerms, lexicalColumns, SearchService, SharedCatchUp } from '@loom/conversations';
import { type SearchTurnsRequest } from '@loom/contracts';
import { HashedEmbeddingProvider } from '@loom/providers';
import { settleMerges } from '../parts/search';
import { inProcessSearchDeps } from './in-process-search';
import { lexicalVariants } from './lexical-variants';
import { startEmbeddedLoom } from '../topology/loom';
import { drive } from '../workload/driver';
import { TurnGenerator } from '../workload/text';
import { summarize } from '../util/stats';

const NAMESPACE = 'bench-search';
const THREADS = 5_000;
const DATABASE = 'bench_search';
/** The bench's calls name no agent: the caller is "default", which filters every leg. */
const AGENT = process.env['LAB_AGENT'] ?? 'default';

async function load(dir: string, turns: number): Promise<void> {
  const loom = await startEmbeddedLoom({ dataDir: dir, database: DATABASE, provider: 'hashed' });
  try {
    const client = loom.client(128);
    await client.ok('conversation.set_logging', { namespace: NAMESPACE, enabled: true });
    const gen = new TurnGenerator(99);
    const result = await drive({
      concurrency: 64,
      totalOps: turns,
      progressEveryMs: 10_000,
      onProgress: (done, ms, rate) => console.log(`  ${done}/${turns} in ${Math.round(ms / 1000)} s (${rate.toFixed(0)}/s)`),
      op: async (seq) => {
        const t = gen.int(THREADS);
        const turn = gen.turn(t % TurnGenerator.topicCount);
        const r = await client.call<{ stored?: boolean }>('conversation.append', {
          namespace: NAMESPACE,
          thread_id: `s-t${t}`,
          msg_id: `s-${seq}`,
          role: gen.next() < 0.5 ? 'user' : 'assistant',
          content: turn.content,
        });
        return r.status === 200 && r.body.stored ? { ok: true } : { ok: false, error: `${r.status}` };
      },
    });
    console.log(`loaded ${result.ok} (${result.failed} failed)`);
    console.log(JSON.stringify(await settleMerges(client)));
    client.close();
  } finally {
    await loom.close();
  }
  execSync('sync');
}

async function measure(dir: string, count: number): Promise<void> {
  const storage = Storage.open({ database: DATABASE, dataDir: dir });
  const started = Date.now();
  await runMigrations(storage);
  console.log(`migrations: ${Date.now() - started} ms`);
  const { embedder, settings } = inProcessSearchDeps();
  // Each statement's time by kind, to see where a search spends it.
  const spent = new Map<string, number[]>();
  const kindOf = (sql: string): string =>
    /cu_since/.test(sql) ? 'shared catch-up' : /kp_since/.test(sql) ? 'postings' : /kp_terms/.test(sql) ? 'new terms' : /kept_since/.test(sql) ? 'catch-up' : /kept_threads/.test(sql) ? 'exact' : /lagInFrame|argMax\(substringUTF8/i.test(sql) ? 'neighbours' : /'turn' AS source|content AS text|argMax\(text, version\)/.test(sql) ? 'texts' : /max\(version\)/.test(sql) ? 'signature' : /conversation_terms/.test(sql) && /score/.test(sql) ? 'bm25' : /conversation_terms/.test(sql) ? 'stats' : /embedding/.test(sql) ? 'vector' : 'other';
  const query = storage.query.bind(storage);
  // LAB_BM25_SETTINGS (e.g. "max_threads = 1"): per-query settings on the BM25 statement, to try them.
  const bm25Settings = process.env['LAB_BM25_SETTINGS'];
  (storage as { query: typeof storage.query }).query = async <T>(sql: string, params?: Record<string, unknown>): Promise<T[]> => {
    const t = performance.now();
    try {
      return await query<T>(bm25Settings && kindOf(sql) === 'bm25' ? `${sql} SETTINGS ${bm25Settings}` : sql, params);
    } finally {
      const k = kindOf(sql);
      spent.set(k, [...(spent.get(k) ?? []), performance.now() - t]);
    }
  };
  // LAB_VECTOR_DEPTH: how deep hybrid's vector leg ranks (default: the service's own).
  const vectorDepth = process.env['LAB_VECTOR_DEPTH'] ? Number(process.env['LAB_VECTOR_DEPTH']) : undefined;
  // LAB_KEPT=0: stage 1 of the vector leg in the engine, as before ADR 0038.
  // LAB_SHARED_CATCH_UP=0: each kept copy reads its own catch-up, as before ADR 0040; LAB_KEPT_EXACT=0: no exact copies.
  const catchUp = process.env['LAB_SHARED_CATCH_UP'] === '0' ? undefined : new SharedCatchUp(storage);
  const kept = process.env['LAB_KEPT'] === '0' ? undefined : new KeptVectors(storage, { catchUp, ...(process.env['LAB_KEPT_EXACT'] === '0' ? { maxExactRows: 0 } : {}) });
  // LAB_KEPT_POSTINGS=0: the lexical leg in the engine, as before ADR 0039; a number: the postings budget (1M turns need more than the default).
  const postingsBudget = Number(process.env['LAB_KEPT_POSTINGS'] ?? NaN);
  const postings = postingsBudget === 0 ? undefined : new KeptPostings(storage, { catchUp, ...(postingsBudget > 0 ? { maxPostings: postingsBudget } : {}) });
  const service = new SearchService(storage, embedder, settings, {
    statsMaxAgeMs: 60_000,
    retentionDays: 0,
    ...(vectorDepth ? { vectorDepth: () => vectorDepth } : {}),
    ...(kept ? { keptVectors: kept } : {}),
    ...(postings ? { keptPostings: postings } : {}),
  });
  const gen = new TurnGenerator(4242);
  const queries = Array.from({ length: count }, (_, i) => gen.query(i % TurnGenerator.topicCount));
  const scope = { all: false as const, namespaces: [NAMESPACE] };
  if (kept) {
    const t = performance.now();
    await service.search(scope, AGENT, { query: queries[0]!, search_mode: 'vector', limit: 10 } as SearchTurnsRequest);
    await kept.settled();
    if (postings) {
      await service.search(scope, AGENT, { query: queries[0]!, search_mode: 'lexical', limit: 10 } as SearchTurnsRequest);
      await postings.settled();
      console.log(`kept postings: ${JSON.stringify(postings.held())}`);
    }
    console.log(`kept vectors read in ${Math.round(performance.now() - t)} ms: ${JSON.stringify(kept.held())}, heap ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB, rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
  }
  const run = async (mode: string, extra: Partial<SearchTurnsRequest> = {}, n = count): Promise<void> => {
    for (let i = 0; i < 10; i += 1) await service.search(scope, AGENT, { query: queries[i]!, search_mode: mode, limit: 10, ...extra } as SearchTurnsRequest);
    spent.clear();
    const ms: number[] = [];
    let hits = 0;
    for (let i = 0; i < n; i += 1) {
      const t = performance.now();
      const r = await service.search(scope, AGENT, { query: queries[i]!, search_mode: mode, limit: 10, ...extra, ...(extra.thread_id ? { thread_id: `s-t${(i * 37) % THREADS}` } : {}) } as SearchTurnsRequest);
      ms.push(performance.now() - t);
      hits += r.hits.length;
    }
    const s = summarize(ms);
    const parts = [...spent].map(([k, v]) => `${k} ${summarize(v).p50}/${summarize(v).p95} (${v.length})`).join(', ');
    console.log(`${mode}${extra.thread_id ? ' thread' : ''}: p50 ${s.p50} p95 ${s.p95} ms, mean hits ${(hits / n).toFixed(1)}; statements p50/p95: ${parts}`);
    spent.clear();

  };
  // LAB_WARM=1: every query asked once and its terms read before timing (a repeating vocabulary, all terms held).
  if (postings && process.env['LAB_WARM'] === '1') {
    for (const q of queries) await service.search(scope, AGENT, { query: q, search_mode: 'lexical', limit: 10 } as SearchTurnsRequest);
    await postings.settled();
    console.log(`warm: kept postings ${JSON.stringify(postings.held())}`);
  }
  spent.clear();
  // LAB_MODES (e.g. "hybrid"): only those phases.
  const modes = (process.env['LAB_MODES'] ?? 'vector,lexical,hybrid,thread').split(',');
  if (modes.includes('vector')) await run('vector');
  if (modes.includes('lexical')) await run('lexical');
  if (modes.includes('hybrid')) await run('hybrid');
  if (modes.includes('thread')) await run('hybrid', { thread_id: 'x' }, Math.min(count, 50));
  // A fingerprint of the answers, to compare rankings between versions.
  const answers: string[] = [];
  for (let i = 0; i < 20; i += 1) {
    const r = await service.search(scope, AGENT, { query: queries[i]!, search_mode: 'hybrid', limit: 10 } as SearchTurnsRequest);
    answers.push(r.hits.map((h) => h.msg_id).join(','));
  }
  console.log(`answers: ${JSON.stringify(answers).length} chars, first: ${answers[0]}`);
  if (process.env['LAB_ANSWERS']) writeFileSync(process.env['LAB_ANSWERS'], JSON.stringify(answers, null, 1));
  await storage.close();
}

/**
 * The same turns written straight into the engine (transcript and embedding rows, as the append
 * path writes them, in batches), for a machine too busy to load through HTTP in good time.
 */
async function loadDirect(dir: string, turns: number): Promise<void> {
  const storage = Storage.open({ database: DATABASE, dataDir: dir });
  await runMigrations(storage);
  const provider = new HashedEmbeddingProvider();
  const gen = new TurnGenerator(99);
  const batch = 5_000;
  const base = Date.UTC(2026, 10, 1) * 1000;
  for (let start = 0; start < turns; start += batch) {
    const transcripts: object[] = [];
    const embeddings: object[] = [];
    const n = Math.min(batch, turns - start);
    const drawn = Array.from({ length: n }, () => {
      const t = gen.int(THREADS);
      return { t, turn: gen.turn(t % TurnGenerator.topicCount), role: gen.next() < 0.5 ? 'user' : 'assistant' };
    });
    const vectors = await provider.embed(drawn.map((d) => d.turn.content));
    drawn.forEach((d, i) => {
      const seq = start + i;
      const ts = formatMicros(base + seq * 1000);
      const common = { namespace: NAMESPACE, thread_id: `s-t${d.t}`, msg_id: `s-${seq}`, agent: 'default', role: d.role, run_id: '', user_id: '', ts, created_at: ts.slice(0, 23), version: base + seq * 1000 };
      transcripts.push({ ...common, content: d.turn.content, reasoning: '', metadata: '{}', tokens: null, is_high: false });
      embeddings.push({ ...common, text: d.turn.content.slice(0, 2048), model: provider.model, embedding: vectors[i], embed_error: '', ...lexicalColumns(d.turn.content) });
    });
    await storage.insert(storage.tables.conversations, transcripts);
    await storage.insert(storage.tables.conversationEmbeddings, embeddings);
    console.log(`${start + n}/${turns}`);
  }
  await storage.command(`OPTIMIZE TABLE ${storage.tables.conversationEmbeddings} FINAL`);
  await storage.command(`OPTIMIZE TABLE ${storage.tables.conversationTerms} FINAL`);
  await storage.command(`OPTIMIZE TABLE ${storage.tables.conversations} FINAL`);
  await storage.close();
  execSync('sync');
}

/**
 * The first hybrid search of a namespace no copy holds yet, as the bench's first search at a size
 * meets it: the search starts the reads of the kept vectors and postings and answers meanwhile.
 * Logs every statement (kind, start and duration from the search's start), then when the reads
 * settle, then a second search. LAB_KEPT_POSTINGS: the postings budget.
 */
async function first(dir: string): Promise<void> {
  const storage = Storage.open({ database: DATABASE, dataDir: dir });
  await runMigrations(storage);
  const { embedder, settings } = inProcessSearchDeps();
  const t0 = performance.now();
  const at = () => Math.round(performance.now() - t0);
  const slow = Number(process.env['LAB_SLOW_MS'] ?? 200);
  const counts = new Map<string, { n: number; ms: number; max: number }>();
  /** A statement call, timed from its call (its wait for the engine included) and logged by kind. */
  const timed =
    (call: typeof storage.query) =>
    async <T>(sql: string, params?: Record<string, unknown>): Promise<T[]> => {
      const begun = performance.now();
      try {
        return await call<T>(sql, params);
      } finally {
        const ms = performance.now() - begun;
        const kind = /kp_page/.test(sql) ? 'postings page' : /kept_page/.test(sql) ? 'vectors page' : /kp_ns/.test(sql) ? 'postings count' : /kept_ns/.test(sql) ? 'vectors count' : /cu_since/.test(sql) ? 'catch-up' : 'search';
        const c = counts.get(kind) ?? { n: 0, ms: 0, max: 0 };
        counts.set(kind, { n: c.n + 1, ms: c.ms + ms, max: Math.max(c.max, ms) });
        if (ms >= slow || kind === 'search' || kind.endsWith('count')) console.log(`  [${at()} ms] ${kind}: ${Math.round(ms)} ms ${kind === 'search' ? sql.replace(/\s+/g, ' ').slice(0, 90) : ''}`);
      }
    };
  const calls = storage as { query: typeof storage.query; backgroundQuery: typeof storage.query };
  const [query, background] = [storage.query.bind(storage), storage.backgroundQuery.bind(storage)];
  calls.query = timed(query);
  // LAB_NO_GATE=1: background reads queue with the search's statements, as before ADR 0042.
  calls.backgroundQuery = timed(process.env['LAB_NO_GATE'] === '1' ? query : background);
  const catchUp = new SharedCatchUp(storage);
  const kept = new KeptVectors(storage, { catchUp });
  const budget = Number(process.env['LAB_KEPT_POSTINGS'] ?? NaN);
  const postings = new KeptPostings(storage, { catchUp, ...(budget > 0 ? { maxPostings: budget } : {}) });
  const service = new SearchService(storage, embedder, settings, { statsMaxAgeMs: 60_000, retentionDays: 0, keptVectors: kept, keptPostings: postings });
  const scope = { all: false as const, namespaces: [NAMESPACE] };
  const queries = Array.from({ length: 3 }, (_, i) => new TurnGenerator(4242).query(i % TurnGenerator.topicCount));
  const ask = async (q: string) => {
    const begun = performance.now();
    const r = await service.search(scope, AGENT, { query: q, search_mode: 'hybrid', limit: 10 } as SearchTurnsRequest);
    return `${Math.round(performance.now() - begun)} ms, ${r.hits.length} hits, mode ${r.mode}`;
  };
  console.log(`first hybrid search: ${await ask(queries[0]!)} [answered at ${at()} ms]`);
  console.log(`a second one while the copies load: ${await ask(queries[1]!)} [at ${at()} ms]`);
  await kept.settled();
  await postings.settled();
  console.log(`copies read at ${at()} ms: vectors ${JSON.stringify(kept.held())}, postings ${JSON.stringify(postings.held())}, heap ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB`);
  console.log(`on the copies: ${await ask(queries[2]!)}`);
  for (const [kind, c] of counts) console.log(`${kind}: ${c.n} statements, ${Math.round(c.ms)} ms in all, longest ${Math.round(c.max)} ms`);
  await postings.close();
  await storage.close();
}

/** Times variants of the lexical statement on the same parameters (engine only). */
async function statements(dir: string, count: number): Promise<void> {
  const storage = Storage.open({ database: DATABASE, dataDir: dir });
  const stats = new Bm25Statistics(storage, { maxAgeMs: 600_000, retentionDays: 0 });
  const gen = new TurnGenerator(4242);
  const queries = Array.from({ length: count }, (_, i) => gen.query(i % TurnGenerator.topicCount));
  const scope = { all: false as const, namespaces: [NAMESPACE] };
  const t = storage.tables.conversationTerms;
  const [parts] = await storage.query<{ p: string; n: string }>(`SELECT toString(count()) AS p, toString(sum(rows)) AS n FROM system.parts WHERE database = {db:String} AND table = 'conversation_terms' AND active`, { db: DATABASE });
  console.log(`postings: ${parts?.n} rows in ${parts?.p} parts`);
  const variants: Record<string, (terms: string[]) => string> = {
    current: () => bm25ScoringStatement(t, ['namespace IN {namespaces:Array(String)}'], ['agent = {agent:String}']),
    postingsFinal: () => `SELECT count() FROM ${t} FINAL WHERE namespace IN {namespaces:Array(String)} AND term IN {terms:Array(String)} AND deleted = 0 AND agent = {agent:String}`,
    postingsPlain: () => `SELECT count() FROM ${t} WHERE namespace IN {namespaces:Array(String)} AND term IN {terms:Array(String)} AND deleted = 0 AND agent = {agent:String}`,
    ...lexicalVariants(t),
  };
  const timings = new Map<string, number[]>();
  const volumes: number[] = [];
  for (let round = 0; round < 2; round += 1) {
    for (const q of queries) {
      const terms = queryTerms(q);
      const { parameters } = await stats.lookup(scope, terms);
      const params = { terms, limit: 100, k1: 1.2, b: 0.5, stat_ns: parameters.namespaces, avgdl: parameters.avgLengths, idf: parameters.idf, namespaces: [NAMESPACE], agent: 'default' };
      if (round === 1) {
        const [v] = await storage.query<{ n: string }>(`SELECT toString(count()) AS n FROM ${t} WHERE namespace IN {namespaces:Array(String)} AND term IN {terms:Array(String)}`, params);
        volumes.push(Number(v?.n));
      }
      for (const [name, sql] of Object.entries(variants)) {
        const started = performance.now();
        await storage.query(sql(terms), params);
        if (round === 1) timings.set(name, [...(timings.get(name) ?? []), performance.now() - started]);
      }
    }
  }
  console.log(`postings per query: ${JSON.stringify(summarize(volumes))}`);
  for (const [name, ms] of timings) console.log(`${name}: p50 ${summarize(ms).p50} p95 ${summarize(ms).p95} ms`);
  await storage.close();
}

const [cmd, dir, arg] = process.argv.slice(2);
(cmd === 'load' ? load(dir!, Number(arg ?? 100_000)) : cmd === 'load-direct' ? loadDirect(dir!, Number(arg ?? 100_000)) : cmd === 'statements' ? statements(dir!, Number(arg ?? 60)) : cmd === 'first' ? first(dir!) : measure(dir!, Number(arg ?? 100))).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
