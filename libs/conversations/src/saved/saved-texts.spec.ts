import { SavedTexts } from './saved-texts';

/** ADR 0037 addendum 3: the rows a saved-message search shows, held at each message's live version. */
describe('SavedTexts', () => {
  const row = (content: string, ts = '2026-12-01 10:00:00.000000') => ({ content, ts });
  const live = (entries: Record<string, string>) => new Map(Object.entries(entries));

  it('SAVE-SEARCH-02 [ADR 0037 addendum 3]: serves rows only at the versions the current corpus names, and none when any hit is missing', () => {
    const texts = new SavedTexts<ReturnType<typeof row>>(1_000, 0);
    const v1 = live({ a: '1', b: '1' });
    expect(texts.lookup('u', ['a'], v1)).toBeUndefined();
    expect(texts.keep('u', ['a', 'b'], v1, new Map([['a', row('alpha')]]))).toBe(true);
    // b was read and not shown (high, or not saved): held as nothing, so it costs no read.
    expect(texts.lookup('u', ['a', 'b'], v1)).toEqual(new Map([['a', row('alpha')]]));
    // A new version of a (re-saved, erased, tombstoned): the held row is not served.
    expect(texts.lookup('u', ['a', 'b'], live({ a: '2', b: '1' }))).toBeUndefined();
    expect(texts.lookup('u', ['b', 'c'], v1)).toBeUndefined();
    expect(texts.lookup('other', ['a'], v1)).toBeUndefined();
  });

  it('CONV-RET-03 [ADR 0037 addendum 3]: a held row older than the retention TTL is not served (the engine read decides)', () => {
    const now = Date.parse('2026-12-10T00:00:00Z');
    const texts = new SavedTexts<ReturnType<typeof row>>(1_000, 5, () => now);
    const v = live({ old: '1', recent: '1' });
    texts.keep('u', ['old', 'recent'], v, new Map([['old', row('old text', '2026-12-01 00:00:00.000000')], ['recent', row('recent text', '2026-12-08 00:00:00.000000')]]));
    expect(texts.lookup('u', ['recent'], v)?.get('recent')?.content).toBe('recent text');
    expect(texts.lookup('u', ['recent', 'old'], v)).toBeUndefined();
  });

  it('[ADR 0037 addendum 3] the budget bounds the characters of all users: the least recently used are dropped, a user alone over it holds nothing more, and 0 holds none', () => {
    const texts = new SavedTexts<ReturnType<typeof row>>(10, 0);
    const v = live({ a: '1', b: '1' });
    expect(texts.keep('u1', ['a'], v, new Map([['a', row('123456')]]))).toBe(true);
    expect(texts.keep('u2', ['a'], v, new Map([['a', row('1234')]]))).toBe(true);
    expect(texts.held()).toEqual({ users: 2, chars: 10 });
    texts.lookup('u1', ['a'], v);
    expect(texts.keep('u3', ['b'], v, new Map([['b', row('xyz')]]))).toBe(true);
    // u2 was used least recently.
    expect(texts.lookup('u2', ['a'], v)).toBeUndefined();
    expect(texts.held()).toEqual({ users: 2, chars: 9 });
    expect(texts.keep('u1', ['b'], v, new Map([['b', row('12345')]]))).toBe(false);
    expect(texts.lookup('u1', ['b'], v)).toBeUndefined();
    const none = new SavedTexts<ReturnType<typeof row>>(0, 0);
    expect(none.enabled()).toBe(false);
    expect(none.keep('u', ['a'], v, new Map())).toBe(false);
  });

  it('[ADR 0037 addendum 3] prune drops the rows of messages no longer live at their held version', () => {
    const texts = new SavedTexts<ReturnType<typeof row>>(100, 0);
    texts.keep('u', ['a', 'b'], live({ a: '1', b: '1' }), new Map([['a', row('aaaa')], ['b', row('bb')]]));
    texts.prune('u', live({ a: '1', b: '2' }));
    expect(texts.held()).toEqual({ users: 1, chars: 4 });
    expect(texts.has('u', 'a', '1')).toBe(true);
    expect(texts.has('u', 'b', '1')).toBe(false);
  });
});
