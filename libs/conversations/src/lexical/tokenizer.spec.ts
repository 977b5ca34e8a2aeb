import { firstMatch, queryTerms, termFrequencies, tokenize } from './tokenizer';

describe('lexical tokenizer [issue 10: tokens serve code]', () => {
  it('CONV-SEARCH-LEX-01 an identifier is indexed whole and by its camelCase and snake_case parts', () => {
    expect(tokenize('parseJsonBody')).toEqual(['parsejsonbody', 'parse', 'json', 'body']);
    expect(tokenize('ERR_CONNECTION_REFUSED')).toEqual(['err_connection_refused', 'err', 'connection', 'refused']);
    expect(tokenize('HTTPServerError')).toEqual(['httpservererror', 'http', 'server', 'error']);
  });

  it('CONV-SEARCH-LEX-02 dotted and path compounds are indexed whole and by segment; flags and file names keep their exact text', () => {
    expect(tokenize('src/app/main.ts')).toEqual(expect.arrayContaining(['src/app/main.ts', 'src', 'app', 'main', 'ts']));
    expect(tokenize('React.useState')).toEqual(expect.arrayContaining(['react.usestate', 'react', 'usestate', 'use', 'state']));
    expect(tokenize('--max-old-space-size=4096')).toEqual(expect.arrayContaining(['max-old-space-size', 'max', 'old', 'space', 'size', '4096']));
    expect(queryTerms('E11000')).toEqual(['e11000', '11000']);
    expect(queryTerms('ledger v2')).toEqual(['ledger', 'v2']);
    expect(queryTerms('x')).toEqual(['x']);
  });

  it('CONV-SEARCH-LEX-03 matching is case-insensitive and takes any Unicode letters', () => {
    expect(tokenize('Straße ÜBERPRÜFUNG 日本語')).toEqual(['straße', 'überprüfung', '日本語']);
    expect(queryTerms('FooBar')).toEqual(['foobar', 'foo', 'bar']);
    expect(tokenize('FOOBAR')).toEqual(['foobar']);
  });

  it('CONV-SEARCH-LEX-04 a text of only stopwords or punctuation has no terms', () => {
    expect(queryTerms('the and of which')).toEqual([]);
    expect(queryTerms('!!! ??? ...')).toEqual([]);
  });

  it('CONV-SEARCH-LEX-05 term frequencies count repeats, and the first match points at the compound', () => {
    const { tf, length } = termFrequencies('retry retry backoff');
    expect(tf.get('retri')).toBe(2);
    expect(length).toBe(3);
    const text = 'aaa bbb then parseJsonBody failed';
    expect(firstMatch(text, ['json'])).toBe(text.indexOf('parseJsonBody'));
    expect(firstMatch(text, ['zzz'])).toBeUndefined();
  });

  it('[issue 10: stemming] the index holds English words by their Porter stem; a query asks for the stem and the word as typed', () => {
    expect([...termFrequencies('we rotated the credentials when connecting').tf.keys()]).toEqual(['rotat', 'credenti', 'connect']);
    expect(queryTerms('rotating credential')).toEqual(['rotat', 'rotating', 'credenti', 'credential']);
    // Identifiers, numbers and other scripts are held as written.
    expect(queryTerms('ERR_CONNECTION_REFUSED')).toEqual(['err_connection_refused', 'err', 'connect', 'connection', 'refus', 'refused']);
    expect(queryTerms('Überprüfungen 4096')).toEqual(['überprüfungen', '4096']);
    // An excerpt points at the word as written before a word that only shares its stem.
    const text = 'the billing notes say BILL-77123 failed';
    expect(firstMatch(text, ['bill-77123', 'bill'])).toBe(text.indexOf('BILL'));
    expect(firstMatch(text, ['bill'])).toBe(text.indexOf('BILL'));
    expect(firstMatch('billing only', ['bill'])).toBe(0);
  });
});
