import { tokenize } from '../lexical/tokenizer';
import { bm25, centredExcerpt, reciprocalRankFusion } from './bm25';

describe('BM25 over saved messages', () => {
  const docs = [
    { key: 'a', text: 'We moved invoices to the new ledger.' },
    { key: 'b', text: 'The ledger_v2 table holds PROJ-1234 backfill rows.' },
    { key: 'c', text: 'Lunch was good.' },
  ];

  it('tokenizes with conversation search\'s tokenizer [issue 10]: identifiers whole and by parts, case-insensitively, stopwords out', () => {
    expect(tokenize('Fix PROJ-1234 in ledger_v2!')).toEqual(['fix', 'proj-1234', 'proj', '1234', 'ledger_v2', 'ledger', 'v2']);
    expect(bm25(docs, 'proj').map((h) => h.key)).toEqual(['b']);
  });

  it('SAVE-SEARCH-07: an exact identifier ranks the message holding it first', () => {
    expect(bm25(docs, 'ledger_v2')[0]?.key).toBe('b');
    expect(bm25(docs, 'PROJ-1234').map((h) => h.key)).toEqual(['b']);
    expect(bm25(docs, 'nothing matches here')).toEqual([]);
  });

  it('SAVE-SEARCH-10: scores depend only on the corpus given (one user\'s messages)', () => {
    const mine = bm25(docs, 'ledger')[0]!.score;
    const withOthers = bm25([...docs, { key: 'x', text: 'ledger ledger ledger' }], 'ledger').find((h) => h.key === 'a')!.score;
    expect(withOthers).not.toBe(mine);
    expect(bm25(docs, 'ledger')[0]!.score).toBe(mine);
  });

  it('SAVE-SEARCH-09: the excerpt is centred on the first match, deep in a long text', () => {
    const text = 'x'.repeat(10_000) + ' needle-term ' + 'y'.repeat(5_000);
    const [hit] = bm25([{ key: 'long', text }], 'needle');
    expect(hit!.firstMatch).toBe(10_001);
    const excerpt = centredExcerpt(text, hit!.firstMatch, 240);
    expect(excerpt).toHaveLength(240);
    expect(excerpt).toContain('needle-term');
    expect(centredExcerpt('short text', 3, 240)).toBe('short text');
  });

  it('never splits a surrogate pair', () => {
    const text = '🧵'.repeat(500) + 'needle' + '🧵'.repeat(500);
    const excerpt = centredExcerpt(text, text.indexOf('needle'), 100);
    expect(Array.from(excerpt)).toHaveLength(100);
    expect(excerpt).toContain('needle');
    expect(excerpt).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('SAVE-SEARCH-08: fusion adds each leg\'s weight / (60 + rank); a leg weighted 0 adds nothing', () => {
    const fused = reciprocalRankFusion([
      { keys: ['a', 'b'], weight: 0.5 },
      { keys: ['b'], weight: 0.5 },
    ]);
    expect(fused.get('a')).toBeCloseTo(0.5 / 61);
    expect(fused.get('b')).toBeCloseTo(0.5 / 62 + 0.5 / 61);
    const vectorOnly = reciprocalRankFusion([
      { keys: ['a', 'b'], weight: 1 },
      { keys: ['b'], weight: 0 },
    ]);
    expect(vectorOnly.get('b')).toBeCloseTo(1 / 62);
  });
});
