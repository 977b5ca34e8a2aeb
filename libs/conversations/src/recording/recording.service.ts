import { formatMillis, type Storage } from '@loom/clickhouse';
import { nextVersion, RefreshingCache } from '@loom/platform';

const CACHE_MS = 1_000;

/**
 * The namespace's recording switch. Fails closed: no row means not recording. The verdict is
 * cached for a second because every append asks; a switch in this process updates the cache at
 * once, other gateway replicas follow within CACHE_MS.
 */
export class RecordingService {
  private readonly cache: RefreshingCache<string, boolean>;

  constructor(private readonly storage: Storage) {
    this.cache = new RefreshingCache(CACHE_MS, (namespace) => this.load(namespace));
  }

  isRecording(namespace: string): Promise<boolean> {
    return this.cache.get(namespace);
  }

  private async load(namespace: string): Promise<boolean> {
    const rows = await this.storage.query<{ enabled: boolean }>(
      `SELECT conversation_logging_enabled AS enabled FROM ${this.storage.tables.namespaces} FINAL WHERE namespace = {ns:String} LIMIT 1`,
      { ns: namespace },
    );
    return rows[0]?.enabled === true;
  }

  async setLogging(namespace: string, enabled: boolean): Promise<void> {
    await this.storage.insert(this.storage.tables.namespaces, [
      { namespace, conversation_logging_enabled: enabled, updated_at: formatMillis(), version: nextVersion() },
    ]);
    this.cache.set(namespace, enabled);
  }
}
