import type { Storage } from '@loom/clickhouse';
import { openTestStorage } from '../../../testing/src';
import { bm25ScoringStatement } from './bm25-scoring-statement';
import { Bm25Statistics } from './bm25-statistics';
import { lexicalColumns } from './lexical-columns';

/**
 * The scoring statement keeps only the best-weighted `per_term` postings of each query term
 * (ADR 0027). Proven here with per_term 2 on the real engine: the cut follows the filters and
 * the latest version of each posting, and the statistics are those of every live turn.
 */
describe('BM25 scoring of the best-weighted postings per term [issue 10: hybrid speed]', () => {
  let storage: Storage & { drop(): Promise<void> };
  beforeAll(async () => {
    storage = await openTestStorage();
  });
  afterAll(async () => storage.drop());

  let version = 0;
  const write = async (msgId: string, content: string, extra: Record<string, unknown> = {}): Promise<void> => {
    version += 1;
    await storage.insert(storage.tables.conversationEmbeddings, [
      {
        namespace: 'ns',
        thread_id: 't',
        msg_id: msgId,
        agent: 'default',
        role: 'user',
        run_id: '',
        user_id: '',
        ts: `2026-11-29 12:00:${String(version).padStart(2, '0')}.000000`,
        text: content,
        model: 'm',
        embedding: [1, 0],
        embed_error: '',
        created_at: '2026-11-29 12:00:00.000',
        version,
        ...lexicalColumns(content),
        ...extra,
      },
    ]);
  };
  const score = async (terms: string[], perTerm: number, filters: string[] = [], extra: Record<string, unknown> = {}): Promise<string[]> => {
    const stats = await new Bm25Statistics(storage, { maxAgeMs: 0, retentionDays: 0 }).refresh({ all: false, namespaces: ['ns'] }, terms);
    const rows = await storage.query<{ msg_id: string }>(bm25ScoringStatement(storage.tables.conversationTerms, ['namespace IN {namespaces:Array(String)}'], filters), {
      terms,
      limit: 10,
      per_term: perTerm,
      k1: 1.2,
      b: 0.5,
      stat_ns: stats.namespaces,
      avgdl: stats.avgLengths,
      idf: stats.idf,
      namespaces: ['ns'],
      ...extra,
    });
    return rows.map((r) => r.msg_id);
  };

  it('[issue 10: hybrid speed] a term held by more turns than per_term scores only its best-weighted turns; the filters and tombstones apply before the cut', async () => {
    // "ledger" weighs most in short turns that repeat it; m1 and m2 are its best two.
    await write('m1', 'ledger ledger ledger');
    await write('m2', 'ledger ledger');
    await write('m3', 'ledger and a longer turn about other things entirely');
    await write('m4', 'ledger in a much longer turn about many other things that go on and on', { role: 'assistant' });
    expect(await score(['ledger'], 1000)).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(await score(['ledger'], 2)).toEqual(['m1', 'm2']);
    // The role filter runs first: the assistant's only turn is found, though it weighs least.
    expect(await score(['ledger'], 2, ['role = {role:String}'], { role: 'assistant' })).toEqual(['m4']);
    // A tombstoned best turn leaves room for the next one.
    await write('m1', 'ledger ledger ledger', { deleted: true });
    expect(await score(['ledger'], 2)).toEqual(['m2', 'm3']);
  });
});
