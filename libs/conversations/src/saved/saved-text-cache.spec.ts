import { SavedTextCache, textKeyOf } from './saved-text-cache';

describe('held hit texts (ADR 0037)', () => {
  it('[issue 10: saved search speed] holds texts per row version up to a number of characters, least recently used out', () => {
    const cache = new SavedTextCache(10);
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    expect(cache.get('a')).toBe('aaaa');
    cache.set('c', 'cccc');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('aaaa');
    expect(cache.size).toEqual({ texts: 2, chars: 8 });
    cache.set('a', 'a');
    expect(cache.size).toEqual({ texts: 2, chars: 5 });
    cache.set('huge', 'x'.repeat(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(new SavedTextCache(0).get('a')).toBeUndefined();
  });

  it('keys a text by namespace, thread, agent, message and version', () => {
    const row = { thread_id: 't', agent: 'default', msg_id: 'm', version: '7' };
    expect(textKeyOf('ns', row)).not.toBe(textKeyOf('ns', { ...row, version: '8' }));
    expect(textKeyOf('ns', row)).not.toBe(textKeyOf('other', row));
  });
});
