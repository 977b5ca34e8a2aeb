import { porterStem } from './porter-stemmer';

describe('Porter stemmer [issue 10: stemming]', () => {
  it('stems as Porter (1980) published, step by step', () => {
    const cases: Record<string, string> = {
      caresses: 'caress', ponies: 'poni', cats: 'cat', feed: 'feed', agreed: 'agre', plastered: 'plaster', motoring: 'motor', sing: 'sing',
      conflated: 'conflat', troubled: 'troubl', sized: 'size', hopping: 'hop', tanned: 'tan', falling: 'fall', hissing: 'hiss', fizzed: 'fizz',
      failing: 'fail', filing: 'file', happy: 'happi', relational: 'relat', conditional: 'condit', generalization: 'gener', hopeful: 'hope',
      goodness: 'good', revival: 'reviv', adjustment: 'adjust', probate: 'probat', rate: 'rate', controll: 'control', roll: 'roll',
    };
    for (const [word, stem] of Object.entries(cases)) expect([word, porterStem(word)]).toEqual([word, stem]);
  });

  it('gives one stem to the inflections of a word', () => {
    expect(new Set(['connect', 'connected', 'connecting', 'connection', 'connections'].map(porterStem))).toEqual(new Set(['connect']));
  });

  it('leaves alone what is not a lower-case English word: identifiers, numbers, other scripts, short words', () => {
    for (const word of ['err_connection_refused', 'v2', '4096', 'überprüfungen', 'straße', '日本語', 'is', 'ok']) expect(porterStem(word)).toBe(word);
  });
});
