import { formatMillis, type Storage } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';

export type McpToolset = 'core' | 'all';

export interface McpSession {
  id: string;
  namespace: string;
  /** The implicit run; empty for a token that may not begin runs (a viewer). */
  runId: string;
  toolset: McpToolset;
}

/**
 * A session the client ended (DELETE) is a later version of its row whose toolset reads this:
 * one flag needs no column of its own, and readers take any other value as the toolset.
 */
const CLOSED = 'closed';

/**
 * The stored MCP sessions (`mcp_sessions`), so any gateway replica serves a session another one
 * started or one a restart dropped from memory.
 */
export class McpSessions {
  constructor(private readonly storage: Storage) {}

  async create(session: McpSession): Promise<void> {
    await this.write(session, session.toolset);
  }

  /** The open session with this id, or undefined (never started, or ended by its client). */
  async find(id: string): Promise<McpSession | undefined> {
    const [row] = await this.storage.query<{ namespace: string; run_id: string; toolset: string }>(
      `SELECT namespace, run_id, toolset FROM ${this.storage.tables.mcpSessions} FINAL WHERE session_id = {id:String}`,
      { id },
    );
    if (!row || row.toolset === CLOSED) return undefined;
    return { id, namespace: row.namespace, runId: row.run_id, toolset: row.toolset === 'all' ? 'all' : 'core' };
  }

  async close(session: McpSession): Promise<void> {
    await this.write(session, CLOSED);
  }

  private async write(session: McpSession, toolset: string): Promise<void> {
    await this.storage.insert(this.storage.tables.mcpSessions, [
      { session_id: session.id, namespace: session.namespace, run_id: session.runId, toolset, created_at: formatMillis(), version: nextVersion() },
    ]);
  }
}
