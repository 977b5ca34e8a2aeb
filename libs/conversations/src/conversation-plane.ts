import type { Storage } from '@loom/clickhouse';
import { Defaults, TRACKER_DEFAULT_DUPLICATE_THRESHOLD, type SearchMode } from '@loom/contracts';
import type { LeaseManager } from '@loom/leases';
import type { Logger, LoomMetrics } from '@loom/platform';
import { FakeLlmProvider, type LlmProvider } from '@loom/providers';
import type { RequestClient } from '@loom/transport';
import { AppendService } from './append/append.service';
import { EmbeddingWriter } from './append/embedding.writer';
import { TranscriptWriter } from './append/transcript.writer';
import { UnindexedTurns } from './append/unindexed-turns';
import { EmbeddingClient } from './embedding/embedding.client';
import { ReadService } from './read/read.service';
import { CompactionService } from './compaction/compaction.service';
import type { Compactor } from './compaction/remote-compaction';
import { ThreadLeases } from './leases/thread-leases';
import { SavedMessagesService } from './saved/saved-messages.service';
import { ThreadDeleteService } from './deletion/thread-delete.service';
import { SavedSearchService } from './saved/saved-search.service';
import { ReembedService } from './reembed/reembed.service';
import { TurnsRepository } from './read/turns.repository';
import { RecordingService } from './recording/recording.service';
import { KeptVectors } from './search/kept-vectors';
import { SharedCatchUp } from './search/shared-catch-up';
import { KeptPostings } from './lexical/kept-postings';
import { DEFAULT_STATS_MAX_AGE_MS, SearchService } from './search/search.service';
import { LiveSettingsService } from './settings/live-settings.service';
import { ThreadMetaRepository } from './threads/thread-meta.repository';
import { ThreadsService } from './threads/threads.service';
import type { ThreadFence } from './fencing/thread-fence';
import type { StoredTurnKeys } from './append/stored-turn-keys';

export interface ConversationPlaneOptions {
  storage: Storage;
  requests: RequestClient;
  embedTimeoutMs: number;
  defaults: { searchExcerptChars: number; searchMinSimilarity: number; searchMode?: SearchMode; trackerDuplicateThreshold?: number };
  batching: { lingerMs: number; maxRows: number };
  /** Exact in-process fence when this process is storage's only writer (embedded); else storage is re-read. */
  fence: ThreadFence;
  /** Stored turn keys, where this process is storage's only writer: new turns skip the idempotency lookup. */
  storedKeys?: StoredTurnKeys | undefined;
  metrics?: LoomMetrics;
  /** The per-thread leases (in-memory embedded, NATS KV split). */
  leases: LeaseManager;
  /** The deployment's LLM (compaction's summarizer); the fake one when absent. */
  llm?: LlmProvider;
  logger?: Logger;
  /** LOOM_RETENTION_CONVERSATIONS_DAYS (0 or absent: keep forever): lexical search skips expired turns. */
  retentionDays?: number;
  /** LOOM_SEARCH_KEPT_VECTORS: rows of Int8 vectors search keeps in memory (ADR 0038); absent: the default, 0: none. */
  keptVectors?: number;
  /** LOOM_SEARCH_KEPT_EXACT_VECTORS: of those, rows kept with their Float32 vectors (ADR 0040); absent: the default, 0: none. */
  keptExactVectors?: number;
  /** LOOM_SEARCH_KEPT_FILE_VECTORS: of the others, rows kept with their Float32 vectors in a file (ADR 0043); absent: the default, 0: none. */
  keptFileVectors?: number;
  /** LOOM_SEARCH_KEPT_FILE_DIR: where those files go; absent: the system temp directory. */
  keptFileDir?: string | undefined;
  /** LOOM_SEARCH_KEPT_POSTINGS: postings lexical search keeps in memory (ADR 0039, ADR 0041); absent: the default, 0: none. */
  keptPostings?: number;
}

/** The conversation plane's services, wired once per process. */
export interface ConversationPlane {
  recording: RecordingService;
  settings: LiveSettingsService;
  append: AppendService;
  read: ReadService;
  threads: ThreadsService;
  search: SearchService;
  /** The namespaces' Int8 vectors search keeps in memory (ADR 0038). */
  keptVectors: KeptVectors;
  /** The namespaces' postings of asked terms search keeps in memory (ADR 0039). */
  keptPostings: KeptPostings;
  reembed: ReembedService;
  /** Turns stored while the thread leases could not be taken, indexed once they can (ADR 0026). */
  unindexed: UnindexedTurns;
  compaction: Compactor;
  deletion: ThreadDeleteService;
  saved: SavedMessagesService;
  savedSearch: SavedSearchService;
  fence: ThreadFence;
  threadLeases: ThreadLeases;
}

export function createConversationPlane(options: ConversationPlaneOptions): ConversationPlane {
  const { storage, metrics } = options;
  const recording = new RecordingService(storage);
  const settings = new LiveSettingsService(storage, {
    conversation_search_excerpt_chars: options.defaults.searchExcerptChars,
    conversation_search_min_similarity: options.defaults.searchMinSimilarity,
    session_brief_model_calls: 1,
    conversation_search_default_mode: options.defaults.searchMode ?? Defaults.searchMode,
    tracker_duplicate_threshold: options.defaults.trackerDuplicateThreshold ?? TRACKER_DEFAULT_DUPLICATE_THRESHOLD,
  });
  const embedder = new EmbeddingClient(options.requests, options.embedTimeoutMs, metrics);
  const turns = new TurnsRepository(storage);
  const meta = new ThreadMetaRepository(storage);
  const threadLeases = new ThreadLeases(options.leases);
  // One catch-up statement serves both kept copies of a hybrid search (ADR 0040).
  const catchUp = new SharedCatchUp(storage);
  const keptVectors = new KeptVectors(storage, {
    logger: options.logger,
    catchUp,
    ...(options.keptVectors === undefined ? {} : { maxRows: options.keptVectors }),
    ...(options.keptExactVectors === undefined ? {} : { maxExactRows: options.keptExactVectors }),
    ...(options.keptFileVectors === undefined ? {} : { maxFileRows: options.keptFileVectors }),
    ...(options.keptFileDir === undefined ? {} : { fileDir: options.keptFileDir }),
  });
  const keptPostings = new KeptPostings(storage, {
    logger: options.logger,
    catchUp,
    retentionDays: options.retentionDays ?? 0,
    ...(options.keptPostings === undefined ? {} : { maxPostings: options.keptPostings }),
  });
  return {
    recording,
    settings,
    append: new AppendService(
      recording,
      // One writer process (embedded): the stored-key filter and one batch at a time are exact.
      // Several (split): lookup and insert under the thread leases.
      new TranscriptWriter(storage, options.batching, metrics, options.storedKeys, options.storedKeys ? undefined : threadLeases),
      new EmbeddingWriter(storage, options.fence, threadLeases, options.batching),
      embedder,
      options.fence,
      metrics,
    ),
    read: new ReadService(turns, meta, settings),
    threads: new ThreadsService(meta, turns, recording, threadLeases),
    search: new SearchService(storage, embedder, settings, {
      statsMaxAgeMs: DEFAULT_STATS_MAX_AGE_MS,
      retentionDays: options.retentionDays ?? 0,
      keptVectors,
      keptPostings,
    }),
    keptVectors,
    keptPostings,
    reembed: new ReembedService(storage, embedder, options.fence),
    unindexed: new UnindexedTurns(storage, embedder, threadLeases),
    deletion: new ThreadDeleteService(storage, meta, threadLeases, options.fence),
    saved: new SavedMessagesService(storage, embedder, threadLeases, options.fence, recording, settings, metrics),
    savedSearch: new SavedSearchService(storage, embedder, settings, {}, { retentionDays: options.retentionDays ?? 0 }),
    compaction: new CompactionService(storage, embedder, options.llm ?? new FakeLlmProvider(), threadLeases, options.fence, { metrics, logger: options.logger }),
    fence: options.fence,
    threadLeases,
  };
}
