import { candidatesFor, latestLive, needsMoreCandidates, quantize, rankExact, vectorCandidatesStatement, type CandidateRow } from './vector-ranking';

const row = (msg: string, version: number, extra: Partial<CandidateRow> = {}): CandidateRow => ({
  namespace: 'ns',
  thread_id: 't',
  msg_id: msg,
  agent: 'default',
  role: 'user',
  run_id: '',
  user_id: '',
  ts: '2026-11-29 12:00:00.000000',
  excerpt: msg,
  score: 0.5,
  deleted: false,
  version: String(version),
  ...extra,
});

describe('vector ranking without FINAL', () => {
  it('CONV-SEARCH-03: the latest version of a turn wins, a tombstone removes it, versions compare as 64-bit integers', () => {
    const rows = [
      row('a', 1_732_000_000_000_001, { score: 0.9 }),
      row('a', 1_732_000_000_000_002, { score: 0.9, deleted: 1 }),
      row('b', 9_007_199_254_740_993, { score: 0.4 }),
      row('b', 9_007_199_254_740_992, { score: 0.8 }),
    ];
    rows[2]!.version = '9007199254740993';
    rows[3]!.version = '9007199254740992';
    expect(latestLive(rows).map((r) => [r.msg_id, r.score])).toEqual([['b', 0.4]]);
  });

  it('CONV-SEARCH-03: ranks by exact score, newest first on ties, and drops what is under the floor', () => {
    const rows = [row('low', 1, { score: 0.29 }), row('old', 2, { score: 0.7, ts: '2026-11-29 10:00:00.000000' }), row('new', 3, { score: 0.7, ts: '2026-11-29 11:00:00.000000' }), row('top', 4, { score: 0.95 })];
    expect(rankExact(rows, 0.3, 10).map((r) => r.msg_id)).toEqual(['top', 'new', 'old']);
    expect(rankExact(rows, 0.3, 2).map((r) => r.msg_id)).toEqual(['top', 'new']);
  });

  it('asks for a larger pool only when a full pool held too few live turns', () => {
    const pool = candidatesFor(10);
    expect(pool).toBe(40);
    expect(needsMoreCandidates(pool, pool, pool, 10)).toBe(false);
    expect(needsMoreCandidates(pool, pool, 25, 10)).toBe(true);
    // A pool that was not full already holds every matching row.
    expect(needsMoreCandidates(pool, 31, 25, 10)).toBe(false);
  });

  it('quantises the query onto the Int8 scale of the stored vectors', () => {
    expect(quantize([0.5, -0.25, 0])).toEqual([127, -64, 0]);
    expect(quantize([0, 0])).toEqual([0, 0]);
  });
});

describe('hand-over versions (filters_changed)', () => {
  const row = (msg_id: string, version: string, extra: Partial<CandidateRow> = {}): CandidateRow => ({
    namespace: 'ns',
    thread_id: 't',
    msg_id,
    agent: 'a',
    role: 'user',
    run_id: '',
    user_id: '',
    ts: '2026-11-29 10:00:00.000000',
    excerpt: msg_id,
    score: 0.9,
    deleted: 0,
    version,
    ...extra,
  });

  it("CONV-COMPACT-17: the latest version decides the agent: a row handed over to agent b leaves agent a's results and joins b's", () => {
    const rows = [row('x', '1'), row('x', '2', { agent: 'b' }), row('y', '1')];
    expect(latestLive(rows, { agent: 'a' }).map((r) => r.msg_id)).toEqual(['y']);
    expect(latestLive(rows, { agent: 'b' }).map((r) => r.msg_id)).toEqual(['x']);
    expect(latestLive(rows).map((r) => r.msg_id)).toEqual(['x', 'y']);
  });

  it('stage 1 lets hand-over versions through the agent, run and role filters only', () => {
    const sql = vectorCandidatesStatement('db.emb', ['namespace = {ns:String}'], ['agent = {agent:String}', 'role = {role:String}']);
    expect(sql).toContain('WHERE namespace = {ns:String} AND ((agent = {agent:String} AND role = {role:String}) OR filters_changed)');
    expect(vectorCandidatesStatement('db.emb', ['namespace = {ns:String}'])).toContain('WHERE namespace = {ns:String}\n');
  });
});
