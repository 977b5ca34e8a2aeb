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
  searchLexicalWeight: 0.5,
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
