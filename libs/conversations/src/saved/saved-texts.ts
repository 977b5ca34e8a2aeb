/**
 * The transcript rows a saved-message search shows, kept per user at the version of each
 * message's embedding row that made it live (ADR 0037 addendum 3). Reading ten hits' rows from
 * `conversations` was most of a warm search (about 14 of 20 ms in chDB: each hit decompresses
 * its granule of `content`), while a user's 10,000 saved messages are a few megabytes of text.
 *
 * Why a held row is still the row the engine would return: every change that can change what a
 * search shows of a saved message (a save, re-save, unsave, tombstone, erasure, hand-over)
 * writes a new version of its embedding row, so a row held at the version the current corpus
 * names is current, and the caller checks the corpus with the user's signature on every search.
 * The retention TTL removes transcript rows without a version: a row older than it is not
 * served from here (the engine's read decides, as before).
 *
 * `null` is kept too: a hit the engine's read does not show (high, or no longer the user's saved
 * message at that version) costs no statement on the next search either.
 */
export interface HeldRow {
  content: string;
  ts: string;
}

interface HeldText<D> {
  version: string;
  doc: D | null;
}

const DAY_MS = 86_400_000;

export class SavedTexts<D extends HeldRow> {
  /** Per user (namespace and user id), in least recently used order (oldest first). */
  private readonly users = new Map<string, { texts: Map<string, HeldText<D>>; chars: number }>();
  private heldChars = 0;

  constructor(
    /** At most how many characters of content all users' rows hold together; 0 keeps none. */
    private readonly maxChars: number,
    /** LOOM_RETENTION_CONVERSATIONS_DAYS (0: forever). */
    private readonly retentionDays: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The rows of `keys` at the versions `live` names, or undefined when any is not held at that
   * version (or is past the retention TTL): then the caller reads them all from the engine.
   */
  lookup(user: string, keys: readonly string[], live: ReadonlyMap<string, string>): Map<string, D> | undefined {
    const held = this.users.get(user);
    if (!held) return undefined;
    const oldest = this.retentionDays > 0 ? this.now() - this.retentionDays * DAY_MS : undefined;
    const docs = new Map<string, D>();
    for (const key of keys) {
      const text = held.texts.get(key);
      if (!text || text.version !== live.get(key)) return undefined;
      if (!text.doc) continue;
      if (oldest !== undefined && Date.parse(`${text.doc.ts.replace(' ', 'T')}Z`) < oldest) return undefined;
      docs.set(key, text.doc);
    }
    this.touch(user, held);
    return docs;
  }

  /** False when the budget holds no text. */
  enabled(): boolean {
    return this.maxChars > 0;
  }

  /** Whether `key` is held at `version` (a fill skips it). */
  has(user: string, key: string, version: string | undefined): boolean {
    return version !== undefined && this.users.get(user)?.texts.get(key)?.version === version;
  }

  /**
   * Keeps what one engine read returned for `keys` (read together with a signature that matched
   * the corpus whose live versions `live` names): the row shown, or null. False once the user's
   * rows would pass the budget (nothing of this read is kept then).
   */
  keep(user: string, keys: readonly string[], live: ReadonlyMap<string, string>, docs: ReadonlyMap<string, D>): boolean {
    if (this.maxChars === 0) return false;
    let held = this.users.get(user);
    let added = 0;
    for (const key of keys) added += docs.get(key)?.content.length ?? 0;
    if ((held?.chars ?? 0) + added > this.maxChars) return false;
    if (!held) {
      held = { texts: new Map(), chars: 0 };
      this.users.set(user, held);
    }
    this.touch(user, held);
    for (const key of keys) {
      const version = live.get(key);
      if (version === undefined) continue;
      const before = held.texts.get(key);
      const doc = docs.get(key) ?? null;
      const change = (doc?.content.length ?? 0) - (before?.doc?.content.length ?? 0);
      held.texts.set(key, { version, doc });
      held.chars += change;
      this.heldChars += change;
    }
    this.makeRoom(user);
    return true;
  }

  /** Rows held (those no longer live included, until their user's rows are dropped) and their characters. */
  held(): { users: number; chars: number } {
    return { users: this.users.size, chars: this.heldChars };
  }

  /** Drops the rows of messages no longer live at their held version (after a corpus is read again). */
  prune(user: string, live: ReadonlyMap<string, string>): void {
    const held = this.users.get(user);
    if (!held) return;
    for (const [key, text] of held.texts) {
      if (live.get(key) === text.version) continue;
      held.texts.delete(key);
      held.chars -= text.doc?.content.length ?? 0;
      this.heldChars -= text.doc?.content.length ?? 0;
    }
  }

  private touch(user: string, held: { texts: Map<string, HeldText<D>>; chars: number }): void {
    this.users.delete(user);
    this.users.set(user, held);
  }

  /** Drops the least recently used other users' rows until all fit. */
  private makeRoom(user: string): void {
    for (const [other, held] of this.users) {
      if (this.heldChars <= this.maxChars) return;
      if (other === user) continue;
      this.users.delete(other);
      this.heldChars -= held.chars;
    }
  }
}
