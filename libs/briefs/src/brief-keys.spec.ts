import fc from 'fast-check';
import { BRIEF_KEY_PATTERN, parseStoredKey, principalKeyPrefix, STORED_BRIEF_KEY_PATTERN, type BoundedPrincipal } from '@loom/contracts';
import { ownsStoredKey, scopeFor, storedKey, type BriefScope } from './brief-keys';

/** Ids as a token may carry them: any text, with the separator and the escape character common. */
const id = fc.string({ unit: fc.constantFrom('a', 'b', '~', '%', '7', 'E', '2', '5', 'é', '😀'), minLength: 1, maxLength: 12 });
const anyId = fc.oneof(id, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }));
const principal: fc.Arbitrary<BoundedPrincipal> = fc.oneof(
  anyId.map((user) => ({ user })),
  fc.tuple(anyId, anyId).map(([user, session]) => ({ user, session })),
);
const key = fc.stringMatching(BRIEF_KEY_PATTERN);

function scopeOf(p: BoundedPrincipal): BriefScope & { bounded: true } {
  const scope = scopeFor(
    p.session === undefined ? { readScope: 'own_user', readUserId: p.user } : { readScope: 'own_session', readUserId: p.user, readSessionId: p.session },
  );
  if (!scope.bounded) throw new Error('a bounded principal gave a namespace-wide scope');
  return scope;
}

const same = (a: BoundedPrincipal, b: BoundedPrincipal) => a.user === b.user && a.session === b.session;

describe('Principal keys [issue 9: principal key collision]', () => {
  it('BRIEF-ADDR-04, BRIEF-ADDR-05: a stored key names exactly one principal and key (the encoding is injective)', () => {
    fc.assert(
      fc.property(principal, key, (p, k) => {
        const stored = storedKey(scopeOf(p), k);
        expect(parseStoredKey(stored)).toEqual({ principal: p.session === undefined ? { user: p.user } : p, key: k });
      }),
      { numRuns: 2_000 },
    );
  });

  it('two different principals never store under the same key, and neither owns the other\'s keys', () => {
    fc.assert(
      fc.property(principal, principal, key, key, (p, q, k1, k2) => {
        const a = storedKey(scopeOf(p), k1);
        const b = storedKey(scopeOf(q), k2);
        if (!same(p, q) || k1 !== k2) expect(a).not.toBe(b);
        expect(ownsStoredKey(scopeOf(q), a)).toBe(same(p, q));
      }),
      { numRuns: 5_000 },
    );
  });

  it('the cases the attack found: own_user alice never reaches alice~bob, and alice~s1 is not the session (alice, s1)', () => {
    const alice = scopeOf({ user: 'alice' });
    const aliceBob = scopeOf({ user: 'alice~bob' });
    const aliceS1User = scopeOf({ user: 'alice~s1' });
    const aliceSessionS1 = scopeOf({ user: 'alice', session: 's1' });
    expect(ownsStoredKey(alice, storedKey(aliceBob, 'k'))).toBe(false);
    expect(storedKey(aliceS1User, 'k')).not.toBe(storedKey(aliceSessionS1, 'k'));
    expect(ownsStoredKey(aliceSessionS1, storedKey(aliceS1User, 'k'))).toBe(false);
    // A user's token does not own the briefs of that user's session tokens either.
    expect(ownsStoredKey(alice, storedKey(aliceSessionS1, 'k'))).toBe(false);
  });

  it('ids with neither ~ nor % keep the stored form they had, so existing briefs read back unchanged', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/[~%]/.test(s)), fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/[~%]/.test(s)), (user, session) => {
        expect(principalKeyPrefix({ user })).toBe(`~${user}~`);
        expect(principalKeyPrefix({ user, session })).toBe(`~${user}~${session}~`);
      }),
    );
  });

  it('the stored key of the longest ids, every character escaped, is still one a namespace-wide token can name', () => {
    const longest = '~'.repeat(256);
    expect(STORED_BRIEF_KEY_PATTERN.test(storedKey(scopeOf({ user: longest, session: longest }), 'k'))).toBe(true);
  });
});
