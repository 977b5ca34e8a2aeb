/** Limits and defaults from the spec, in one place so validators and services agree. */
export const Limits = {
  /** Content larger than this is refused with 413. */
  maxContentBytes: 1024 * 1024,
  /** User and assistant turns are embedded up to this many characters; the embedding row keeps them. */
  embedChars: 2048,
  /** The sensitivity check of an excerpt covers what is shown plus this many characters. */
  excerptLookaheadChars: 1024,
  /** conversation.threads refuses a larger offset. */
  maxThreadsOffset: 100_000,
  maxIdLength: 256,
  maxQueryChars: 4096,
  maxPageSize: 200,
  /** How deep any request body may nest (objects and arrays); deeper is a 400 before anything recursive reads it. */
  maxJsonDepth: 32,
  /** How deep a free-form object (`metadata`) may nest inside its field. */
  maxMetadataDepth: 16,
  /** A free-form object (`metadata`) as JSON text, at most (UTF-16 code units). */
  maxMetadataChars: 64 * 1024,
  /** An error names at most this many fields. */
  maxFieldErrors: 50,
  /** The largest value of a UInt32 column (`tokens`, `revision`). */
  maxUInt32: 4_294_967_295,
  /** Dates a DateTime64 column holds (and a person could mean): from this year ... */
  minYear: 1900,
  /** ... to this one. */
  maxYear: 2299,
  /**
   * A page of turns (conversation.list, conversation.get with include_messages, erasure.export)
   * holds at most this many bytes of content and reasoning (UTF-8), besides its count; it
   * always holds at least one turn, and the cursor carries the rest.
   */
  pageBudgetBytes: 4 * 1024 * 1024,
} as const;

export const Defaults = {
  namespace: 'default',
  agent: 'default',
  searchMinSimilarity: 0.3,
  searchExcerptChars: 240,
  searchLimit: 10,
  /** conversation.search's `search_mode` when the request names none (live setting conversation_search_default_mode). */
  searchMode: 'hybrid',
  /** The BM25 leg's share in hybrid search. */
  searchLexicalWeight: 0.8,
  threadsWindowDays: 30,
  threadsLimit: 50,
  pageSize: 50,
  compactKeepRecent: 10,
  compactMinToCompact: 4,
} as const;

/** The summarizer's prompt sizes (characters): the turns it reads, and the earlier summaries folded in. */
export const CompactionBudget = {
  /** Turns (and summaries further into the window) the summarizer reads per run. */
  promptChars: 24_000,
  /** The separate allowance for earlier summaries at the start of the window. */
  summaryAllowanceChars: 8_000,
} as const;

/** `agent: "*"` reads every agent's turns and threads. */
export const ALL_AGENTS = '*';
