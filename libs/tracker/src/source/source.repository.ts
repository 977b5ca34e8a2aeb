import { formatMillis, type Storage } from '@loom/clickhouse';
import type { TrackerMapping } from '@loom/contracts';
import { nextVersion } from '@loom/platform';
import type { SourceConnection } from './source-client';

export interface RegisteredSource {
  namespace: string;
  connection: SourceConnection;
  mapping: TrackerMapping;
  issueUrlBase: string | undefined;
  registeredAt: string;
}

interface SourceRow {
  namespace: string;
  connection_url: string;
  connection_user: string;
  connection_password: string;
  source_database: string;
  mapping: string;
  issue_url_base: string;
  registered_at: string;
}

/** Registrations in Loom's own `tracker_sources` table: one per namespace, the newest wins. */
export class TrackerSourceRepository {
  constructor(private readonly storage: Storage) {}

  async get(namespace: string): Promise<RegisteredSource | undefined> {
    const [row] = await this.storage.query<SourceRow>(
      `SELECT namespace, connection_url, connection_user, connection_password, source_database, mapping, issue_url_base, toString(registered_at) AS registered_at
       FROM ${this.storage.tables.trackerSources} FINAL WHERE namespace = {namespace:String} LIMIT 1`,
      { namespace },
    );
    if (!row) return undefined;
    return {
      namespace: row.namespace,
      connection: {
        url: row.connection_url,
        user: row.connection_user === '' ? undefined : row.connection_user,
        password: row.connection_password === '' ? undefined : row.connection_password,
        database: row.source_database,
      },
      mapping: JSON.parse(row.mapping) as TrackerMapping,
      issueUrlBase: row.issue_url_base === '' ? undefined : row.issue_url_base,
      registeredAt: row.registered_at.replace(' ', 'T') + 'Z',
    };
  }

  async save(source: Omit<RegisteredSource, 'registeredAt'>): Promise<RegisteredSource> {
    const now = new Date();
    await this.storage.insert(this.storage.tables.trackerSources, [
      {
        namespace: source.namespace,
        connection_url: source.connection.url,
        connection_user: source.connection.user ?? '',
        connection_password: source.connection.password ?? '',
        source_database: source.connection.database,
        mapping: JSON.stringify(source.mapping),
        issue_url_base: source.issueUrlBase ?? '',
        registered_at: formatMillis(now),
        version: nextVersion(),
      },
    ]);
    return { ...source, registeredAt: now.toISOString() };
  }
}
