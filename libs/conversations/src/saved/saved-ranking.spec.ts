import { indexTerm, queryTerms, tokenMatches } from '../lexical/tokenizer';
import { bm25 } from './bm25';
import { keyOf } from './saved-corpus-cache';
import { bm25Idf, normOf, rankBm25, rankByCosine, PostingsBuilder, type HeldDoc, type HeldVector, type SlotTable } from './saved-ranking';

const doc = (thread_id: string, msg_id: string): HeldDoc => ({ key: keyOf({ thread_id, msg_id }), thread_id, msg_id });
const held = (thread: string, msg: string, values: number[] | undefined, model = 'm'): HeldVector => {
  const vector = values ? Float32Array.from(values) : undefined;
  return { ...doc(thread, msg), version: '1', model, vector, norm: vector ? normOf(vector) : 0 };
};

describe('saved search ranked in memory (ADR 0037)', () => {
  describe('cosine', () => {
    const vectors = [
      held('t1', 'a', [1, 0, 0]),
      held('t1', 'b', [1, 1, 0]),
      held('t2', 'c', [0, 1, 0]),
      held('t0', 'same-as-a', [2, 0, 0]),
      held('t1', 'other-model', [1, 0, 0], 'other'),
      held('t1', 'failed-embed', undefined),
    ];

    it('SAVE-SEARCH-05, SAVE-SEARCH-11: ranks by cosine of the query\'s model only, the floor applied, a message with no vector never found', () => {
      const ranked = rankByCosine([1, 0, 0], 'm', vectors, 0.5, 10);
      expect(ranked.map((r) => JSON.parse(r.key)[1])).toEqual(['same-as-a', 'a', 'b']);
      expect(ranked[0]!.score).toBeCloseTo(1, 12);
      expect(ranked[2]!.score).toBeCloseTo(Math.SQRT1_2, 6);
      // c is orthogonal (0), under the floor.
      expect(rankByCosine([1, 0, 0], 'm', vectors, -1, 10).map((r) => JSON.parse(r.key)[1])).toEqual(['same-as-a', 'a', 'b', 'c']);
    });

    it('SAVE-SEARCH-05: equal scores are ordered by (thread_id, msg_id) as the engine orders them; at most `limit`', () => {
      const ties = [held('t2', 'x', [1, 0]), held('t1', 'z', [1, 0]), held('t1', 'y', [1, 0]), held('t3', 'w', [0, 1])];
      expect(rankByCosine([3, 0], 'm', ties, 0, 2).map((r) => r.key)).toEqual([keyOf({ thread_id: 't1', msg_id: 'y' }), keyOf({ thread_id: 't1', msg_id: 'z' })]);
      expect(rankByCosine([3, 0], 'm', ties, 0, 0)).toEqual([]);
    });

    it('SAVE-SEARCH-05: the best of many is the same as sorting them all', () => {
      let seed = 7;
      const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
      const many = Array.from({ length: 500 }, (_, i) => held(`t${i % 17}`, `m${i}`, Array.from({ length: 8 }, next)));
      const q = Array.from({ length: 8 }, next);
      const qn = normOf(Float32Array.from(q));
      const all = many
        .map((h) => ({ key: h.key, score: h.vector!.reduce((s, v, i) => s + v * Math.fround(q[i]!), 0) / (qn * h.norm) }))
        .filter((h) => h.score >= 0.1)
        .sort((a, b) => b.score - a.score);
      expect(rankByCosine(q, 'm', many, 0.1, 25)).toEqual(all.slice(0, 25));
    });
  });

  describe('BM25', () => {
    const texts = [
      { thread: 't1', msg: 'a', text: 'We moved invoices to the new ledger.' },
      { thread: 't1', msg: 'b', text: 'The ledger_v2 table holds PROJ-1234 backfill rows for the ledger.' },
      { thread: 't2', msg: 'c', text: 'Lunch was good.' },
      { thread: 't2', msg: 'd', text: 'ledger ledger ledger invoices' },
    ];
    // Postings and lengths as the index holds them: one per (term, message), tf, and length in terms.
    const index = () => {
      const builder = new PostingsBuilder();
      const docList = texts.map((t) => doc(t.thread, t.msg));
      const lengths = new Uint32Array(texts.length);
      let total = 0;
      texts.forEach((t, slot) => {
        const counts = new Map<string, number>();
        let length = 0;
        for (const { term } of tokenMatches(t.text)) {
          length += 1;
          counts.set(indexTerm(term), (counts.get(indexTerm(term)) ?? 0) + 1);
        }
        total += length;
        lengths[slot] = length;
        for (const [term, tf] of counts) builder.add(term, slot, tf);
      });
      const postings = builder.build();
      const df = new Map([...postings].map(([term, held]) => [term, held.slots.length]));
      const table: SlotTable = { docList, lengths };
      return { postings, table, stats: { docs: texts.length, avgLength: total / texts.length, df } };
    };

    it('SAVE-SEARCH-07, SAVE-SEARCH-10: the scores of the in-process BM25 over the same corpus (k1 1.2, b 0.75, the corpus\'s own idf and mean length)', () => {
      const { postings, table, stats } = index();
      for (const query of ['ledger invoices', 'PROJ-1234', 'ledger_v2 backfill', 'lunch ledger']) {
        const expected = bm25(
          texts.map((t) => ({ key: keyOf({ thread_id: t.thread, msg_id: t.msg }), text: t.text })),
          query,
        );
        const ranked = rankBm25(queryTerms(query), postings, table, stats, 10);
        expect(ranked.map((r) => r.key).sort()).toEqual(expected.map((h) => h.key).sort());
        for (const r of ranked) expect(r.score).toBeCloseTo(expected.find((h) => h.key === r.key)!.score, 9);
      }
    });

    it('SAVE-SEARCH-07: a term asked twice counts once (as `term IN terms`); a term the index never held adds nothing; best first, ties by (thread_id, msg_id), at most `limit`', () => {
      const { postings, table, stats } = index();
      expect(rankBm25(['ledger', 'ledger'], postings, table, stats, 10)).toEqual(rankBm25(['ledger'], postings, table, stats, 10));
      expect(rankBm25(['nowhere'], postings, table, stats, 10)).toEqual([]);
      const tiedTable: SlotTable = { docList: [2, 1, 3].map((i) => doc('t', `m${i}`)), lengths: Uint32Array.of(4, 4, 4) };
      const ties = new PostingsBuilder();
      for (const slot of [0, 1, 2]) ties.add('x', slot, 1);
      const tied = rankBm25(['x'], ties.build(), tiedTable, { docs: 10, avgLength: 4, df: new Map([['x', 3]]) }, 2);
      expect(tied.map((r) => JSON.parse(r.key)[1])).toEqual(['m1', 'm2']);
      expect(tied[0]!.score).toBeCloseTo(bm25Idf(10, 3), 12);
      expect(rankBm25(['ledger'], postings, table, { ...stats, docs: 0 }, 10)).toEqual([]);
    });
  });
});
