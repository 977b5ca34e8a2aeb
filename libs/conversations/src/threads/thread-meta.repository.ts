import { formatMillis, type Storage } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';

export interface ThreadMetaRow {
  namespace: string;
  thread_id: string;
  title: string;
  metadata: string;
  run_id: string;
  created_at: string;
  updated_at: string;
  deleted: boolean;
  /** The row's version (present on reads). */
  version?: number | string;
}

/** Thread metadata rows (title, metadata, run_id) written by create and update. */
export class ThreadMetaRepository {
  constructor(private readonly storage: Storage) {}

  async find(namespace: string, threadId: string): Promise<ThreadMetaRow | undefined> {
    const rows = await this.storage.query<ThreadMetaRow>(
      `SELECT namespace, thread_id, title, metadata, run_id, created_at, updated_at, deleted, version
       FROM ${this.storage.tables.conversationThreads} FINAL
       WHERE namespace = {ns:String} AND thread_id = {thread:String} AND deleted = 0 LIMIT 1`,
      { ns: namespace, thread: threadId },
    );
    return rows[0];
  }

  async findMany(namespace: string, threadIds: string[]): Promise<Map<string, ThreadMetaRow>> {
    if (threadIds.length === 0) return new Map();
    const rows = await this.storage.query<ThreadMetaRow>(
      `SELECT namespace, thread_id, title, metadata, run_id, created_at, updated_at, deleted
       FROM ${this.storage.tables.conversationThreads} FINAL
       WHERE namespace = {ns:String} AND thread_id IN {threads:Array(String)} AND deleted = 0`,
      { ns: namespace, threads: threadIds },
    );
    return new Map(rows.map((r) => [r.thread_id, r]));
  }

  /** A tombstone version of the thread row: reads never see it again. */
  async tombstone(row: ThreadMetaRow): Promise<void> {
    const { version: _version, ...rest } = row;
    await this.storage.insert(this.storage.tables.conversationThreads, [{ ...rest, updated_at: formatMillis(), deleted: true, version: nextVersion() }]);
  }

  /**
   * `version` defaults to a fresh one, which supersedes every earlier write. A background writer
   * (the titler) passes the version it read plus one instead: then any write a person made after
   * that read has a greater version and wins, whichever lands first.
   */
  async write(row: Omit<ThreadMetaRow, 'updated_at' | 'deleted' | 'version'>, options: { version?: number } = {}): Promise<void> {
    await this.storage.insert(this.storage.tables.conversationThreads, [
      { ...row, updated_at: formatMillis(), deleted: false, version: options.version ?? nextVersion() },
    ]);
  }
}
