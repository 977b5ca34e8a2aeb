import { closes, fixReferences } from './fix-references';

describe('issue references in PR bodies and commit messages', () => {
  it('reads Fixes/Closes/Resolves in every tense, lists, qualified refs and issue URLs', () => {
    expect(fixReferences('Fixes #12').map((r) => r.issue)).toEqual(['12']);
    expect(fixReferences('This closes #3, #4 and #5.').map((r) => r.issue)).toEqual(['3', '4', '5']);
    expect(fixReferences('resolved: acme/app#7').map((r) => [r.issue, r.owner])).toEqual([['7', 'acme']]);
    expect(fixReferences('Fixed https://github.com/acme/app/issues/9').map((r) => [r.issue, r.owner])).toEqual([['9', 'acme']]);
    expect(fixReferences('FIXES #1\nCloses #2').map((r) => r.issue)).toEqual(['1', '2']);
  });

  it('a mention without a closing keyword, a PR URL or a keyword inside a word is not a link', () => {
    expect(fixReferences('Related to #12; see #13')).toEqual([]);
    expect(fixReferences('prefixes #12 and suffixed #13')).toEqual([]);
    expect(fixReferences('Fixes https://github.com/acme/app/pull/9')).toEqual([]);
  });

  it('a qualified reference counts only for the tracker organisation', () => {
    expect(closes('Fixes other-org/lib#101', '101', 'acme')).toBeUndefined();
    expect(closes('Fixes ACME/app#101', '#101', 'acme')?.phrase).toBe('Fixes ACME/app#101');
    expect(closes('Fixes #1010', '101', 'acme')).toBeUndefined();
  });
});
