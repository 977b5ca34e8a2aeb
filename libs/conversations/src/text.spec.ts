import { Limits } from '@loom/contracts';
import { firstChars, isWholeText, LEGACY_EMBED_CUT } from './text';

describe('isWholeText: whether an embedding row holds its turn\'s whole text [ADR 0040]', () => {
  it('CONV-SEARCH-11 a text shorter than the embedding cut is whole; one at the cut, or at an earlier build\'s cut, may not be', () => {
    expect(isWholeText('')).toBe(true);
    expect(isWholeText('a short turn')).toBe(true);
    expect(isWholeText('x'.repeat(Limits.embedChars - 1))).toBe(true);
    expect(isWholeText('x'.repeat(Limits.embedChars))).toBe(false);
    expect(isWholeText(firstChars('y'.repeat(5_000), Limits.embedChars))).toBe(false);
    expect(isWholeText('z'.repeat(LEGACY_EMBED_CUT))).toBe(false);
    expect(isWholeText('z'.repeat(LEGACY_EMBED_CUT + 1))).toBe(true);
  });

  it('CONV-SEARCH-11 characters are counted as the write path cuts them: code points, so an emoji counts once', () => {
    // 2,047 emoji are 4,094 UTF-16 units: still under the cut of 2,048 characters.
    expect(isWholeText('🧵'.repeat(Limits.embedChars - 1))).toBe(true);
    expect(isWholeText(firstChars('🧵'.repeat(3_000), Limits.embedChars))).toBe(false);
    expect(isWholeText('🧵'.repeat(LEGACY_EMBED_CUT))).toBe(false);
  });
});
