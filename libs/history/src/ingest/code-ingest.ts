import { formatMillis, type Storage } from '@loom/clickhouse';
import { LoomError } from '@loom/contracts';
import { BlobReader } from '../git/blob-reader';
import { git, gitLines } from '../git/git';
import { LOG_FORMAT, parseLog } from '../git/log-parser';
import { SymbolIndex } from '../symbols/symbol-index';
import { RepositoryStore } from '../store/repository-store';
import type { CommitRow, FileChangeRow, HunkRow, RepositoryRow, SymbolChangeRow } from '../store/history-rows';
import { commitRows } from './commit-rows';

export interface IngestRequest {
  namespace: string;
  /** The repository's name in Loom (unique per namespace). */
  name: string;
  /** A clone on the ingesting machine (a bare one will do). */
  path: string;
  /** What to index up to; default HEAD. */
  ref?: string;
}

export interface IngestOptions {
  /** Commits per checkpoint: a crash rewrites at most this many. */
  batchCommits?: number;
  onProgress?: (repository: RepositoryRow) => void;
  /** The ingest's lease: once it is lost, another process may run the ingest, so this one stops writing. */
  signal?: AbortSignal;
}

/**
 * Indexes a repository's mainline history (first parents, oldest first) into the code tables:
 * commits, file changes with renames, hunks and the symbols they touched. Writes a batch's rows,
 * then moves the repository's checkpoint past them; a rerun (new commits, or after a crash)
 * starts after the checkpoint, and a rewritten batch folds into the rows already stored.
 */
export class CodeIngest {
  private readonly repositories: RepositoryStore;

  constructor(
    private readonly storage: Storage,
    private readonly symbols: SymbolIndex = new SymbolIndex(),
  ) {
    this.repositories = new RepositoryStore(storage);
  }

  /** Checks the repository and ref; throws the error a caller should see before any work starts. */
  async resolve(request: IngestRequest): Promise<{ head: string; from: RepositoryRow | undefined }> {
    await git(request.path, ['rev-parse', '--git-dir']);
    const head = (await git(request.path, ['rev-parse', '--verify', '--quiet', `${request.ref ?? 'HEAD'}^{commit}`]).catch((error: unknown) => {
      if (LoomError.isLoomError(error) && error.code === 'internal') throw unknownRef(request.ref ?? 'HEAD');
      throw error;
    })).trim();
    if (!/^[0-9a-f]{40,64}$/.test(head)) throw unknownRef(request.ref ?? 'HEAD');
    return { head, from: await this.repositories.get(request.namespace, request.name) };
  }

  async run(request: IngestRequest, options: IngestOptions = {}): Promise<RepositoryRow> {
    const { head, from } = await this.resolve(request);
    const resumeFrom = from?.last_sha && (await isAncestor(request.path, from.last_sha, head)) ? from : undefined;
    const range = resumeFrom ? `${resumeFrom.last_sha}..${head}` : head;
    const seqBase = resumeFrom?.commits ?? 0;
    const total = Number((await git(request.path, ['rev-list', '--first-parent', '--count', range])).trim());
    let repository: RepositoryRow = {
      namespace: request.namespace,
      name: request.name,
      path: request.path,
      ref: request.ref ?? 'HEAD',
      state: 'ingesting',
      error: '',
      last_sha: resumeFrom?.last_sha ?? '',
      commits: seqBase,
      commits_total: seqBase + total,
      started_at: formatMillis(),
      updated_at: formatMillis(),
    };
    await this.repositories.put(repository);
    options.onProgress?.(repository);
    const blobs = new BlobReader(request.path);
    const batchSize = options.batchCommits ?? 100;
    let batch: Batch = emptyBatch();
    let seq = seqBase;
    try {
      const log = gitLines(request.path, ['log', '--first-parent', '--diff-merges=first-parent', '--reverse', '-p', '-U0', '-M', '--no-color', '--no-ext-diff', '--no-textconv', `--format=${LOG_FORMAT}`, range]);
      for await (const commit of parseLog(log)) {
        seq += 1;
        const rows = await commitRows(request.namespace, request.name, seq, commit, blobs, this.symbols);
        batch.commits.push(rows.commit);
        batch.files.push(...rows.files);
        batch.hunks.push(...rows.hunks);
        batch.symbols.push(...rows.symbols);
        if (batch.commits.length >= batchSize) {
          repository = await this.flush(repository, batch, seq, 'ingesting', options.signal);
          options.onProgress?.(repository);
          batch = emptyBatch();
        }
      }
      repository = await this.flush(repository, batch, seq, 'ready', options.signal);
      options.onProgress?.(repository);
      return repository;
    } catch (error) {
      const failed = { ...repository, state: 'failed' as const, error: error instanceof Error ? error.message.slice(0, 500) : String(error), updated_at: formatMillis() };
      // A lost lease means another process may own the state now: leave it to that one.
      if (!options.signal?.aborted) await this.repositories.put(failed).catch(() => undefined);
      options.onProgress?.(failed);
      throw error;
    } finally {
      blobs.close();
    }
  }

  /** Rows first, the checkpoint last: a crash between them only rewrites this batch. */
  private async flush(repository: RepositoryRow, batch: Batch, seq: number, state: RepositoryRow['state'] = 'ingesting', signal?: AbortSignal): Promise<RepositoryRow> {
    signal?.throwIfAborted();
    const t = this.storage.tables;
    await this.storage.insert(t.codeFileChanges, batch.files);
    await this.storage.insert(t.codeHunks, batch.hunks);
    await this.storage.insert(t.codeSymbolChanges, batch.symbols);
    await this.storage.insert(t.codeCommits, batch.commits);
    const last = batch.commits[batch.commits.length - 1];
    const next: RepositoryRow = { ...repository, state, last_sha: last?.sha ?? repository.last_sha, commits: seq, updated_at: formatMillis() };
    await this.repositories.put(next);
    return next;
  }
}

interface Batch {
  commits: CommitRow[];
  files: FileChangeRow[];
  hunks: HunkRow[];
  symbols: SymbolChangeRow[];
}

function emptyBatch(): Batch {
  return { commits: [], files: [], hunks: [], symbols: [] };
}

async function isAncestor(path: string, ancestor: string, head: string): Promise<boolean> {
  try {
    await git(path, ['merge-base', '--is-ancestor', ancestor, head]);
    return true;
  } catch {
    return false;
  }
}

function unknownRef(ref: string): LoomError {
  return new LoomError('invalid_input', `the repository has no commit "${ref}"; give a branch, tag or commit it has`, { fields: [{ field: 'ref', message: 'unknown ref' }] });
}
