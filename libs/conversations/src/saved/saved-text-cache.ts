/**
 * The text of saved messages' transcript rows, per row version, kept between searches (ADR 0037,
 * after ADR 0030's measurement): reading ten hits' rows cost as much as a leg, two thirds of it
 * their `content`. A row's content at one version never changes (every write is a new version),
 * so a held text is exact for that version; the search still reads each hit's latest version
 * and its conditions every time, and takes a text from here only for that version. Only text that
 * passed the high check is held. Bounded in characters, least recently used out.
 */
export class SavedTextCache {
  private readonly texts = new Map<string, string>();
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  get(key: string): string | undefined {
    const text = this.texts.get(key);
    if (text !== undefined) {
      this.texts.delete(key);
      this.texts.set(key, text);
    }
    return text;
  }

  set(key: string, text: string): void {
    if (text.length > this.maxChars) return;
    const old = this.texts.get(key);
    if (old !== undefined) {
      this.texts.delete(key);
      this.chars -= old.length;
    }
    this.texts.set(key, text);
    this.chars += text.length;
    for (const [k, t] of this.texts) {
      if (this.chars <= this.maxChars) break;
      this.texts.delete(k);
      this.chars -= t.length;
    }
  }

  get size(): { texts: number; chars: number } {
    return { texts: this.texts.size, chars: this.chars };
  }
}

/** The key of a transcript row's text at one version. */
export const textKeyOf = (ns: string, r: { thread_id: string; agent: string; msg_id: string; version: string }): string =>
  JSON.stringify([ns, r.thread_id, r.agent, r.msg_id, r.version]);
