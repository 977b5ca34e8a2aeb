import { originalOf, resolveDuplicates } from './resolve';

const r = (id: string, score: number) => ({ id, score, shared: [`e${id}`] });
const all = () => true;

describe('recorded duplicates answer with their original [TRACKER-03]', () => {
  it('TRACKER-03: a known duplicate ranked first gives its place and score to its original, which says via; the duplicate leaves the list', () => {
    const out = resolveDuplicates([r('31077', 0.6), r('900', 0.4), r('8655', 0.2)], new Map([['31077', '8655']]), all);
    expect(out).toEqual([
      { id: '8655', score: 0.6, shared: ['e31077'], via: '31077' },
      { id: '900', score: 0.4, shared: ['e900'], via: null },
    ]);
  });

  it('TRACKER-03: an original already ranked above its known duplicate keeps its own place; several duplicates of one original count once', () => {
    const out = resolveDuplicates([r('1', 0.9), r('2', 0.7), r('3', 0.5), r('4', 0.3)], new Map([['2', '1'], ['3', '4']]), all);
    expect(out.map((x) => `${x.id}:${x.score}:${x.via}`)).toEqual(['1:0.9:null', '4:0.5:3']);
  });

  it('TRACKER-03: chains are followed to the last original the check may answer; cycles and originals outside the pool leave the issue as it is', () => {
    const links = new Map([['c', 'b'], ['b', 'a'], ['x', 'y'], ['y', 'x'], ['n', 'newer']]);
    expect(originalOf('c', links, all)).toBe('a');
    expect(originalOf('c', links, (id) => id !== 'a')).toBe('b');
    expect(originalOf('x', links, all)).toBe('y');
    expect(originalOf('n', links, (id) => id !== 'newer')).toBe('n');
    const out = resolveDuplicates([r('n', 0.8), r('c', 0.5)], links, (id) => id !== 'newer');
    expect(out.map((x) => `${x.id}:${x.via}`)).toEqual(['n:null', 'a:c']);
  });

  it('TRACKER-03: with no recorded links the ranking is untouched', () => {
    expect(resolveDuplicates([r('1', 0.5), r('2', 0.4)], new Map(), all)).toEqual([
      { ...r('1', 0.5), via: null },
      { ...r('2', 0.4), via: null },
    ]);
  });
});
