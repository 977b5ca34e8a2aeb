import type { Storage } from '@loom/clickhouse';
import type { RepositoryRow } from './history-rows';

const COLUMNS = 'namespace, name, path, ref, state, error, last_sha, commits, commits_total, started_at, updated_at';

/** The indexed repositories of each namespace, newest row of each winning. */
export class RepositoryStore {
  constructor(private readonly storage: Storage) {}

  async get(namespace: string, name: string): Promise<RepositoryRow | undefined> {
    const rows = await this.storage.query<RepositoryRow>(
      `SELECT ${COLUMNS} FROM ${this.storage.tables.codeRepositories} FINAL WHERE namespace = {namespace:String} AND name = {name:String} LIMIT 1`,
      { namespace, name },
    );
    return rows[0] && normalise(rows[0]);
  }

  async list(namespace: string): Promise<RepositoryRow[]> {
    const rows = await this.storage.query<RepositoryRow>(`SELECT ${COLUMNS} FROM ${this.storage.tables.codeRepositories} FINAL WHERE namespace = {namespace:String} ORDER BY name`, { namespace });
    return rows.map(normalise);
  }

  async put(row: RepositoryRow): Promise<void> {
    await this.storage.insert(this.storage.tables.codeRepositories, [row]);
  }
}

function normalise(row: RepositoryRow): RepositoryRow {
  return { ...row, commits: Number(row.commits), commits_total: Number(row.commits_total) };
}
