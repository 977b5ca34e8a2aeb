import { Corpus, type SourceRow } from './kept-corpus';
import { rank, type KeptLexicalFilters, type KeptLexicalRow } from './kept-ranking';

/** A small seeded generator (mulberry32): each case is reproducible from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BM25 = { k1: 1.2, b: 0.5 };
const ROLES = ['user', 'assistant'] as const;

/**
 * BM25 over the latest version of each turn, the plain way (every posting of every term, in the
 * query's order): what the engine statement computes, and what `rank` must answer however it
 * prunes. Ordered by score, time newest first, namespace, thread, id (bytewise).
 */
function reference(byNamespace: ReadonlyMap<string, SourceRow[]>, terms: readonly string[], filters: KeptLexicalFilters, limit: number, fresh: ((at: number) => boolean) | undefined): Array<Pick<KeptLexicalRow, 'namespace' | 'msg_id' | 'score' | 'matched'>> {
  const out: Array<Pick<KeptLexicalRow, 'namespace' | 'thread_id' | 'msg_id' | 'ts' | 'score' | 'matched'>> = [];
  for (const [namespace, rows] of byNamespace) {
    const latest = new Map<string, SourceRow>();
    for (const row of rows) {
      const key = `${row.thread_id}\u0000${row.msg_id}`;
      if (Number(row.v) > Number(latest.get(key)?.v ?? -1)) latest.set(key, row);
    }
    const live = [...latest.values()].filter((r) => !Number(r.deleted) && r.doc_len > 0 && (!fresh || fresh(Date.parse(`${r.ts.replace(' ', 'T')}Z`))));
    if (live.length === 0) continue;
    const avgdl = live.reduce((n, r) => n + r.doc_len, 0) / live.length;
    const idf = new Map(terms.map((t) => [t, Math.log(1 + (live.length - live.filter((r) => r.terms.includes(t)).length + 0.5) / (live.filter((r) => r.terms.includes(t)).length + 0.5))]));
    for (const r of live) {
      if ((filters.agent !== undefined && r.agent !== filters.agent) || (filters.thread_id !== undefined && r.thread_id !== filters.thread_id) || (filters.role !== undefined && r.role !== filters.role) || (filters.run_id !== undefined && r.run_id !== filters.run_id)) continue;
      const matched = terms.filter((t) => r.terms.includes(t));
      if (matched.length === 0) continue;
      const score = matched.reduce((sum, t) => {
        const tf = r.tfs[r.terms.indexOf(t)]!;
        return sum + (idf.get(t)! * tf * (BM25.k1 + 1)) / (tf + BM25.k1 * (1 - BM25.b + (BM25.b * r.doc_len) / avgdl));
      }, 0);
      out.push({ namespace, thread_id: r.thread_id, msg_id: r.msg_id, ts: r.ts, score, matched });
    }
  }
  const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  // Scores that differ only by the order their weights were added in count as equal (the ranking adds rarest first).
  const same = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x));
  out.sort((x, y) => (same(x.score, y.score) ? 0 : y.score - x.score) || (x.ts < y.ts ? 1 : x.ts > y.ts ? -1 : 0) || bytes(x.namespace, y.namespace) || bytes(x.thread_id, y.thread_id) || bytes(x.msg_id, y.msg_id));
  return out.slice(0, limit).map(({ namespace, msg_id, score, matched }) => ({ namespace, msg_id, score, matched }));
}

/**
 * A namespace's embedding rows: a Zipf-like vocabulary (a few words in most turns, many rare
 * ones), tied lengths and frequencies, re-sent versions with other words, tombstones, agents,
 * roles, runs and times a retention TTL can expire.
 */
function generate(random: () => number, namespace: string, turns: number, vocabulary: number): SourceRow[] {
  const rows: SourceRow[] = [];
  let version = 1;
  const word = () => `w${Math.floor(vocabulary * random() ** 3)}`;
  const row = (i: number, deleted: boolean): SourceRow => {
    const terms = [...new Set(Array.from({ length: 1 + Math.floor(random() * 8) }, word))];
    const day = 1 + Math.floor(random() * 28);
    return {
      namespace,
      thread_id: `t${i % 5}`,
      msg_id: `m${i}`,
      doc_len: deleted ? 0 : terms.length + Math.floor(random() * 6),
      agent: random() < 0.7 ? 'default' : 'reviewer',
      role: ROLES[Math.floor(random() * 2)]!,
      run_id: random() < 0.5 ? '' : 'run-1',
      user_id: 'u',
      ts: `2026-11-${String(day).padStart(2, '0')} 12:00:0${Math.floor(random() * 3)}.000000`,
      deleted: deleted ? 1 : 0,
      v: String(version++),
      terms,
      tfs: terms.map(() => 1 + Math.floor(random() * 3)),
    };
  };
  for (let i = 0; i < turns; i += 1) rows.push(row(i, false));
  for (let n = 0; n < turns / 4; n += 1) {
    const i = Math.floor(random() * turns);
    rows.push(row(i, random() < 0.4));
  }
  return rows;
}

describe('In-process BM25 over kept postings with max-score pruning [ADR 0044]', () => {
  it('CONV-SEARCH-01 CONV-SEARCH-20 generated copies, queries, filters and limits: the pruned ranking answers what every posting scored answers', () => {
    const cutoff = Date.parse('2026-11-10T00:00:00Z');
    let cases = 0;
    for (let seed = 1; seed <= 60; seed += 1) {
      const random = rng(seed);
      const byNamespace = new Map<string, SourceRow[]>();
      const corpora: Corpus[] = [];
      for (const namespace of seed % 3 === 0 ? ['a', 'b'] : ['a']) {
        const rows = generate(random, namespace, 40 + Math.floor(random() * 400), 5 + Math.floor(random() * 60));
        byNamespace.set(namespace, rows);
        const corpus = new Corpus(namespace, Date.now(), 10_000_000);
        // Applied in pages, as a full read and the catch-ups that follow it would.
        for (let at = 0; at < rows.length; at += 37) corpus.apply(rows.slice(at, at + 37), Date.now() * 1000);
        corpora.push(corpus);
      }
      for (let q = 0; q < 12; q += 1) {
        const terms = [...new Set(Array.from({ length: 1 + Math.floor(random() * (q === 11 ? 40 : 5)) }, () => `w${Math.floor(70 * random() ** 2)}`))];
        const filters: KeptLexicalFilters = [{}, { agent: 'default' }, { agent: 'nobody' }, { role: 'user' }, { thread_id: 't2', agent: 'reviewer' }, { run_id: 'run-1' }][q % 6]!;
        const limit = [1, 3, 10, 100][q % 4]!;
        const fresh = q % 5 === 4 ? (at: number) => at > cutoff : undefined;
        const got = rank(corpora, terms, filters, limit, BM25, fresh).map(({ namespace, msg_id, score, matched }) => ({ namespace, msg_id, score, matched }));
        const want = reference(byNamespace, terms, filters, limit, fresh);
        expect({ seed, q, ids: got.map((h) => `${h.namespace}/${h.msg_id}`), matched: got.map((h) => h.matched) }).toEqual({ seed, q, ids: want.map((h) => `${h.namespace}/${h.msg_id}`), matched: want.map((h) => h.matched) });
        got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 9));
        cases += 1;
      }
    }
    expect(cases).toBe(720);
  });

  it('CONV-SEARCH-01 a query of 40 words: the terms past the 32nd a hit holds are named in its matched terms, in the query\'s order', () => {
    const words = Array.from({ length: 40 }, (_, i) => `q${i}`);
    const rows: SourceRow[] = Array.from({ length: 60 }, (_, i) => {
      const terms = i < 3 ? ['q2', 'q35', 'q38', 'filler'] : i < 6 ? ['q33', 'filler'] : ['filler'];
      return { namespace: 'n', thread_id: `t${i % 4}`, msg_id: `m${i}`, doc_len: terms.length + (i % 3), agent: 'default', role: 'user', run_id: '', user_id: 'u', ts: '2026-11-01 00:00:00.000000', deleted: 0, v: String(i + 1), terms, tfs: terms.map(() => 1) };
    });
    const corpus = new Corpus('n', Date.now(), 10_000_000);
    corpus.apply(rows, Date.now() * 1000);
    const got = rank([corpus], words, {}, 6, BM25, undefined);
    const want = reference(new Map([['n', rows]]), words, {}, 6, undefined);
    expect(got.map((h) => [h.msg_id, h.matched])).toEqual(want.map((h) => [h.msg_id, h.matched]));
    expect(got.map((h) => h.matched)).toEqual([...Array(3).fill(['q2', 'q35', 'q38']), ...Array(3).fill(['q33'])]);
  });

  it('CONV-SEARCH-01 a common word in most turns adds only to the turns the rare words scored, and ranks them as a full count does', () => {
    const rows: SourceRow[] = [];
    for (let i = 0; i < 3_000; i += 1) {
      const terms = i % 500 === 0 ? ['pelican', 'fix'] : i % 7 === 0 ? ['ledger'] : ['fix', 'the'];
      rows.push({ namespace: 'n', thread_id: `t${i % 9}`, msg_id: `m${i}`, doc_len: 4 + (i % 5), agent: 'default', role: 'user', run_id: '', user_id: 'u', ts: '2026-11-01 00:00:00.000000', deleted: 0, v: String(i + 1), terms, tfs: terms.map(() => 1 + (i % 2)) });
    }
    const corpus = new Corpus('n', Date.now(), 10_000_000);
    corpus.apply(rows, Date.now() * 1000);
    const terms = ['pelican', 'fix'];
    const got = rank([corpus], terms, {}, 5, BM25, undefined);
    const want = reference(new Map([['n', rows]]), terms, {}, 5, undefined);
    expect(got.map((h) => [h.msg_id, h.matched])).toEqual(want.map((h) => [h.msg_id, h.matched]));
    expect(got.map((h) => h.matched)).toEqual(Array(5).fill(['pelican', 'fix']));
    got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 9));
  });
});
