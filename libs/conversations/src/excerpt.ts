import { Limits } from '@loom/contracts';
import { readsAsHighWithin } from '@loom/sensitivity';
import { firstChars } from './text';

/**
 * The excerpt a listing shows: the first `chars` characters, or nothing when a high shape sits
 * in what is shown or in the 1,024 characters past it (a secret cut in half is still a secret).
 */
export function safeExcerpt(text: string, chars: number): string {
  const window = firstChars(text, chars + Limits.excerptLookaheadChars);
  if (readsAsHighWithin(window, 0, window.length)) return '';
  return firstChars(text, chars);
}
