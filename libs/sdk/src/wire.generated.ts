// Generated from the OpenAPI document of the contracts by `npm run generate:wire`
// (libs/contracts/src/openapi/generate). Do not edit: change the contracts and run it again.
/* eslint-disable */

/** Switches the namespace's recording of conversations on or off (the owner's switch). Off: appends are accepted and answer `stored: false, reason: "logging_disabled"`. */
export interface SetLoggingRequest {
  enabled: boolean;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** The recording switch as it stands (the dashboard's "Record conversations" switch reads it). */
export interface GetLoggingRequest {
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** Appends one turn to a thread. `msg_id` makes retries idempotent (without one it is derived from thread, role and content); a turn sent again answers `stored: false, reason: "duplicate"`. */
export interface AppendTurnRequest {
  thread_id: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  /** Up to 1 MiB; larger content is refused with 413 before validation. */
  content: string;
  msg_id?: string;
  reasoning?: string;
  user_id?: string;
  run_id?: string;
  /** Free-form JSON: nested at most 16 levels, at most 65536 characters as JSON. */
  metadata?: Record<string, unknown>;
  /** Stored as UInt32. */
  tokens?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Creates a thread (its id generated when omitted), with a title and metadata; 409 when it exists. */
export interface CreateThreadRequest {
  /** Generated when omitted. */
  thread_id?: string;
  title?: string;
  /** Free-form JSON: nested at most 16 levels, at most 65536 characters as JSON. */
  metadata?: Record<string, unknown>;
  run_id?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Changes a thread's title, metadata or run; answers the thread. */
export interface UpdateThreadRequest {
  thread_id: string;
  title?: string;
  /** Free-form JSON: nested at most 16 levels, at most 65536 characters as JSON. */
  metadata?: Record<string, unknown>;
  run_id?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Reads a thread, and with `include_messages` a page of its turns (follow `next_cursor`). */
export interface GetThreadRequest {
  thread_id: string;
  include_messages?: boolean;
  order?: 'asc' | 'desc';
  limit?: number;
  cursor?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** A page of a thread's turns, oldest first unless `order` is `desc`; follow `next_cursor` for the rest. */
export interface ListTurnsRequest {
  thread_id: string;
  run_id?: string;
  order?: 'asc' | 'desc';
  limit?: number;
  cursor?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** The threads active in the last `window_days`, most recent first, each with its last turn's excerpt. */
export interface ListThreadsRequest {
  window_days?: number;
  limit?: number;
  offset?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Searches turns by meaning and by words (`hybrid`, the default), or one of them (`vector`, `lexical`), over every namespace the token can read unless `namespace_scope` is `namespace`. */
export interface SearchTurnsRequest {
  query: string;
  search_mode?: 'hybrid' | 'vector' | 'lexical';
  /** The BM25 leg's share in hybrid mode, 0-1 (default 0.8); 0 ranks by the vector leg alone, 1 by BM25 alone. */
  lexical_weight?: number;
  thread_id?: string;
  run_id?: string;
  role?: 'user' | 'assistant' | 'system';
  limit?: number;
  /** `all_mine` (default) spans every namespace the token can read; `namespace` only the one named. */
  namespace_scope?: 'all_mine' | 'namespace';
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Has the configured LLM summarise the oldest turns of the calling agent's thread into one `system` turn, keeping the last `keep_recent` turns. */
export interface CompactThreadRequest {
  thread_id: string;
  /** The newest turns never summarised (default 10). */
  keep_recent?: number;
  /** Fewer new turns than this in the window: nothing is done (default 4). */
  min_to_compact?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Deletes the calling agent's turns of a thread (tombstoned, gone from search); `confirm_thread_id` must repeat `thread_id`. */
export interface DeleteThreadRequest {
  thread_id: string;
  /** Must equal `thread_id`: a delete names its thread twice. */
  confirm_thread_id: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Saves a message for a user (indexed for saved-message search), storing it first when it is not yet in the transcript. */
export interface SaveMessageRequest {
  /** The thread the message belongs to. */
  conversation_id: string;
  /** The message's `msg_id` in that thread. */
  message_id: string;
  /** For a message the transcript does not hold yet: its role and text. */
  role?: 'user' | 'assistant' | 'system' | 'tool';
  /** Up to 1 MiB, like an append. */
  content?: string;
  run_id?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
  /** Required unless the token is pinned to one user (`--read-user-id`), which it then must equal. */
  user_id?: string;
}

/** Removes a message from a user's saved messages; doing it again changes nothing. */
export interface UnsaveMessageRequest {
  conversation_id: string;
  message_id: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
  /** Required unless the token is pinned to one user (`--read-user-id`), which it then must equal. */
  user_id?: string;
}

/** Searches a user's saved messages by meaning and by words. */
export interface SearchSavedMessagesRequest {
  query: string;
  search_mode?: 'hybrid' | 'semantic' | 'lexical';
  /** The BM25 leg's share in hybrid mode, 0-1 (default 0.5). */
  lexical_weight?: number;
  conversation_id?: string;
  limit?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
  /** Required unless the token is pinned to one user (`--read-user-id`), which it then must equal. */
  user_id?: string;
}

/** A user's saved messages, newest saved first. */
export interface ListSavedMessagesRequest {
  conversation_id?: string;
  /** Default 50, at most 200. */
  limit?: number;
  cursor?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
  /** Required unless the token is pinned to one user (`--read-user-id`), which it then must equal. */
  user_id?: string;
}

/** Which of up to 500 messages of a conversation a user has saved. */
export interface SavedStatusRequest {
  conversation_id: string;
  message_ids: string[];
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
  /** Required unless the token is pinned to one user (`--read-user-id`), which it then must equal. */
  user_id?: string;
}

/** Stores one fact (never a text that reads as high). */
export interface SetMemoryRequest {
  text: string;
  user_id?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** Turns a conversation's messages into facts (kept as evidence); with `defer`, in the background. */
export interface SetFromMessagesRequest {
  messages: MessageInput[];
  user_id?: string;
  /** The client's session (a Claude Code session id): kept with the evidence. */
  session_id?: string;
  /** Answer at once and extract in the background (the plugins at session end). */
  defer?: boolean;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** Searches facts by meaning. */
export interface SearchMemoryRequest {
  query: string;
  user_id?: string;
  limit?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** The evidence kept from conversations, by time and query. */
export interface RecallRequest {
  /** Words to find (lexical, BM25); without it, the newest evidence in the window. */
  query?: string;
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  since?: string;
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  until?: string;
  user_id?: string;
  limit?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** Where a deferred extraction stands: pending, done or failed. */
export interface ExtractionStatusRequest {
  extraction_id: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** context.pack: what Loom knows that bears on `query`, for one (user, session) scope, as hits and as one text a model can take as context. What a Session's resume reads. */
export interface ContextPackRequest {
  query: string;
  /** Only this user's facts and evidence. */
  user_id?: string;
  /** The session: its thread's turns are searched too (the conversation section needs it). */
  session_id?: string;
  /** Hits per section (default 8). */
  limit?: number;
  /** Most characters of `pack` (default 8,000). */
  max_chars?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Records a session's tool observations (a command, a file read, an error); ones that read as high are skipped. */
export interface ObserveRecordRequest {
  session_id: string;
  observations: ObservationInput[];
  user_id?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** A session's observations, newest first. */
export interface ObserveListRequest {
  session_id?: string;
  user_id?: string;
  /** Only actions that failed (`error`) or succeeded (`ok`). */
  outcome?: 'ok' | 'error' | 'unknown';
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  since?: string;
  limit?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Turns a session's observations into facts. */
export interface ObserveCrystallizeRequest {
  session_id: string;
  user_id?: string;
  /** Answer at once and extract in the background (as memory.set_from_messages defer). */
  defer?: boolean;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Saves a session brief: sections written by the agent, or events condensed on the server (by the LLM, else the deterministic builder). */
export interface BriefSaveRequest {
  /** Empty: `auto/<project>/<branch>` when both are known, else `session/<session_id>`. */
  brief_key?: string;
  project?: string;
  branch?: string;
  session_id?: string;
  /** What happened since the last save, condensed on the server. */
  events?: BriefEvent[];
  /** Sections the calling agent wrote itself. */
  sections?: BriefSectionsInput;
  /** The client's position in its event stream: a save repeating the last (session, cursor) is a retry. */
  event_cursor?: string;
  /** Compare-and-set: applied only when the brief is at this revision (0: it does not exist yet). */
  if_revision?: number;
  /** false: never call a model for the events. */
  use_llm?: boolean;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Reads a session brief by key, by session, or the project's latest; `revision` for an earlier one. */
export interface BriefGetRequest {
  brief_key?: string;
  from_session?: string;
  project?: string;
  revision?: number;
  /** Also the client's own last compaction summary, verbatim, below the brief. */
  full?: boolean;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** The namespace's briefs (or the caller's own), newest first, one line each. */
export interface BriefListRequest {
  mine_only?: boolean;
  limit?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Deletes a session brief. */
export interface BriefDeleteRequest {
  brief_key: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Erase one person's data (user_id) in the caller's namespaces, or whole namespaces (namespace_list). */
export interface ErasureRequest {
  user_id?: string;
  namespace_list?: string[];
  /** With namespace_list only: remove the rows from disk instead of tombstoning them. */
  purge?: boolean;
  /** true (the default): answer when the erasure is done. false: answer `pending` once the request is stored, and let `erasure.status` tell when it is done. Either way the request is stored first, so a crash part-way does not lose it: any replica finishes it. */
  wait?: boolean;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** Where an erasure request stands. */
export interface ErasureStatusRequest {
  erasure_id: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** Exports a person's (or the namespace's) transcript turns, a page at a time. */
export interface ErasureExportRequest {
  /** One person's turns in the caller's namespaces; without it, every turn of the namespace. */
  user_id?: string;
  /** Tombstoned turns are included unless this is false. */
  include_tombstoned?: boolean;
  limit?: number;
  cursor?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** Begins a run: a piece of work with a goal, which turns, memories and usage can be linked to. */
export interface RunBeginRequest {
  goal: string;
  /** The client's own id for the run; generated when absent. */
  run_id?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Completes a run with its status and outcome. */
export interface RunCompleteRequest {
  run_id: string;
  status: 'succeeded' | 'failed' | 'abandoned' | 'ended';
  outcome?: string;
  /** The memories the agent relied on (memory ids). */
  memories_used?: string[];
  /** What the agent wrote: files, PRs, memories, briefs (free-form references). */
  wrote?: string[];
  /** The pull requests the run opened or wrote to (history answers link them back to the run). */
  pull_requests?: RunPullRequest[];
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Reads a run, with its model cost. */
export interface RunGetRequest {
  run_id: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** The runs of an agent (`*`: all), newest first, with the page's model cost. */
export interface RunListRequest {
  status?: 'running' | 'succeeded' | 'failed' | 'abandoned' | 'ended' | 'idle_closed';
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  since?: string;
  /** Only runs that named this pull request (with `repository`: in that repository, or in none named). */
  pull_request?: number;
  repository?: string;
  limit?: number;
  offset?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Reports the model calls made for a run (each counted once by `usage_id`); they give the run its cost. */
export interface RunReportUsageRequest {
  run_id: string;
  reports: UsageReport[];
  /** Begins the run (source `capture`) with this goal when it does not exist yet; without it an unknown run is a 404. */
  goal?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  agent?: string;
}

/** Creates a token for a namespace and role (optionally bounded to one user or session). The secret is shown once. */
export interface CreateTokenRequest {
  /** The namespace the new token acts on; "*" for every namespace, which only a token for every namespace may grant (deployment-wide ops such as settings.set need one). */
  namespace?: string;
  role: 'viewer' | 'writer' | 'admin';
  read_scope?: 'all' | 'own_user' | 'own_session';
  read_user_id?: string;
  /** With read_scope own_session: the one session the token acts for. */
  read_session_id?: string;
  label?: string;
}

/** Revokes a token; calls with it answer 401 from then on. */
export interface RevokeTokenRequest {
  token_id: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** The tokens the caller could revoke: id, label, role, namespaces, read scope, created and last used. Never a secret. */
export interface ListTokensRequest {
  /** Also the revoked tokens (default: live tokens only). */
  include_revoked?: boolean;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** `token.whoami`: what the calling token is, so a client (the dashboard) can offer only what it may do. */
export interface WhoamiRequest {
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** The live settings. */
export interface GetSettingsRequest {
}

/** Changes one live setting, for every namespace, without a restart. */
export interface SetSettingRequest {
  key: 'conversation_search_excerpt_chars' | 'conversation_search_min_similarity' | 'session_brief_model_calls' | 'conversation_search_default_mode' | 'tracker_duplicate_threshold';
  /** A number, or for `conversation_search_default_mode` a mode's name; the range is checked per key. */
  value: string | number;
}

export interface CodeAddRequest {
  /** A clone on the machine that runs the gateway (a bare clone will do). */
  path: string;
  /** Defaults to the last part of the path. */
  name?: string;
  /** The branch, tag or commit to index up to; HEAD when omitted. */
  ref?: string;
  /** Wait for the ingest to finish before answering (the CLI polls code.list instead). */
  wait?: boolean;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** `code.github_sync`: the GitHub source of a repository already added with `code.add`: its merged (and open) pull requests, their reviews and review comments, and its issues, through GitHub's REST API. Rerun it to take what is new, or to resume a paused sync. */
export interface CodeGithubSyncRequest {
  /** The repository's name in Loom (as `code.add` named it). */
  repository: string;
  /** The repository on GitHub, `owner/name`. */
  github: string;
  /** A token that can read the repository (a fine-grained token needs read access to Pull requests, Issues and Metadata). Held in the syncing gateway's memory while the sync runs and never stored, logged or answered. Without it the gateway's LOOM_GITHUB_TOKEN is used (only towards LOOM_GITHUB_API_URL), else none (public repositories, 60 requests an hour). */
  token?: string;
  /** GitHub Enterprise Server's API (`https://github.example.com/api/v3`); default LOOM_GITHUB_API_URL. Only LOOM_GITHUB_API_URL and the APIs in the gateway's LOOM_GITHUB_API_URLS are called: any other answers 400 naming api_url. */
  api_url?: string;
  /** Wait for the sync to finish (or pause) before answering. */
  wait?: boolean;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

export interface CodeListRequest {
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

export interface HistoryPathRequest {
  /** A file (renames followed back) or a directory (its files' changes). */
  path: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  repository: string;
  limit?: number;
}

export interface HistorySymbolRequest {
  /** `query`, or qualified: `ClickHouseClient.query`. */
  symbol: string;
  /** Only changes to files under this path. */
  path?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  repository: string;
  limit?: number;
}

export interface HistoryLineRequest {
  path: string;
  /** 1-based, in the file as of `ref`. */
  line: number;
  /** A commit of the indexed history (sha or prefix); the newest indexed commit when omitted. */
  ref?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  repository: string;
  limit?: number;
}

export interface HistoryReviewBriefRequest {
  pr_number: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  repository: string;
  limit?: number;
}

export interface HistoryDuplicateCheckRequest {
  /** At least one of title, description and diff. */
  title?: string;
  description?: string;
  /** A unified diff (`git diff` output) of the proposed change. */
  diff?: string;
  /** Only changes older than this indexed commit (sha or prefix): "was this done before then?". */
  before?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  repository: string;
  limit?: number;
}

export interface HistoryBisectRequest {
  /** The regression, as a person would report it. */
  description: string;
  /** The last commit known good (excluded) and the first known bad (included), sha or prefix. */
  good?: string;
  bad?: string;
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  since?: string;
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  until?: string;
  /** Paths (files or directories) and symbols the caller suspects. */
  paths?: string[];
  symbols?: string[];
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  repository: string;
  limit?: number;
}

export interface TrackerStatusRequest {
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

export interface TrackerSourceRegisterRequest {
  connection: TrackerConnection;
  mapping: TrackerMapping;
  /** Base URL of the tracker's issue pages, for links in answers (e.g. https://github.com/acme/app/issues/). */
  issue_url_base?: string;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

export interface TrackerDuplicateCheckRequest {
  /** The new issue's title; required unless `issue` names one already in the tracker. */
  title?: string;
  body?: string;
  /** An issue already in the tracker, checked against the issues opened before it (its title and body are read from the source). */
  issue?: string;
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  created_before?: string;
  limit?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

export interface TrackerIssueLinksRequest {
  /** The issue's id as the tracker writes it (e.g. "1234"). */
  issue: string;
  limit?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

export interface TrackerFlakyTestsRequest {
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  since?: string;
  /** Only this test. */
  test?: string;
  limit?: number;
  offset?: number;
  /** Latest runs shown per test. */
  runs?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

export interface TrackerIncidentsRequest {
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  since?: string;
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  until?: string;
  /** Only incidents linked (caused or fixed) to this pull request. */
  pr?: number;
  /** Only incidents of this repository (`acme/app` or a Loom repository name, compared case-insensitively): those whose `repo` column or PR refs name it, and those that name no repository at all (a bare PR number names that PR in every repository). With `pr`, the PR ref must name this repository or none. */
  repository?: string;
  /** Only incidents linked to this commit (a sha or a prefix of at least 7 hex digits). */
  commit?: string;
  /** Only this severity or status (compared case-insensitively). */
  severity?: string;
  status?: string;
  limit?: number;
  offset?: number;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** Rows of the append path that storage refused on their own (poison rows), set aside so that the rows written with them were stored. Deployment-wide: an every-namespace admin token. */
export interface QuarantineListRequest {
  limit?: number;
  /** Include each row as JSON text (it holds the turn's text). */
  include_rows?: boolean;
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
}

/** Insert each row again; one the engine takes is stored and leaves the quarantine. */
export interface QuarantineRetryRequest {
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  ids: string[];
}

/** Remove each row from the quarantine without storing it. */
export interface QuarantineDropRequest {
  /** Defaults to the token's namespace when the token has exactly one. */
  namespace?: string;
  ids: string[];
}

export interface MessageInput {
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
}

/** One tool action of a session, as an episodic observation: which tool, a one-line summary of what it was asked to do (a command, a file, a query), and whether it failed. Never the tool's output. `obs_id` is the client's id for the action (Claude Code's tool_use id): recording it again changes nothing. */
export interface ObservationInput {
  obs_id: string;
  tool: string;
  summary: string;
  /** The file the action touched, when it names one. */
  path?: string;
  outcome?: 'ok' | 'error' | 'unknown';
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  ts?: string;
}

export interface BriefEvent {
  kind: 'user' | 'assistant' | 'edit' | 'command' | 'error' | 'read' | 'search' | 'tool' | 'note' | 'summary';
  text: string;
  /** A file the event touched (edit, read). */
  path?: string;
}

export interface BriefSectionsInput {
  goal?: string;
  status?: string;
  decisions?: string[];
  dead_ends?: string[];
  done?: string[];
  open_questions?: string[];
  next_steps?: string[];
  key_files?: string[];
  constraints?: string[];
  pointers?: string[];
}

/** A pull request a run opened or wrote to. `repository` is the repository's name in Loom's code index (`loom code add --name`), so history answers can link the PR back to the run; without it the PR number matches in any repository of the namespace. */
export interface RunPullRequest {
  number: number;
  repository?: string;
  url?: string;
}

/** One model call's token usage, as a client reports it (the Claude Code plugin, from the session transcript). `usage_id` is the client's id for the call: a report sent again replaces the earlier one and is never counted twice. */
export interface UsageReport {
  usage_id: string;
  model: string;
  /** A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years 1900-2299. */
  ts?: string;
  /** Input tokens read from neither cache. */
  input_tokens: number;
  output_tokens: number;
  /** Input tokens written to the 5-minute prompt cache. */
  cache_write_tokens?: number;
  /** Input tokens written to the 1-hour prompt cache (priced higher). */
  cache_write_1h_tokens?: number;
  cache_read_tokens?: number;
}

export interface TrackerConnection {
  url: string;
  user?: string;
  /** Stored to connect; never logged and never answered. */
  password?: string;
  /** The database holding the mapped tables. */
  database: string;
}

export interface TrackerMapping {
  issues: IssuesMapping;
  pr_links?: PrLinksMapping;
  pull_requests?: PullRequestsMapping;
  commits?: CommitsMapping;
  ci_runs?: CiRunsMapping;
  /** Where recorded duplicate links live besides `issues.duplicate_of` (either, both or neither). */
  duplicate_links?: DuplicateLinksMapping;
  incidents?: IncidentsMapping;
}

/** The issues table: one row per issue. */
export interface IssuesMapping {
  table: string;
  id: string;
  title: string;
  body: string;
  created_at: string;
  state?: string;
  closed_at?: string;
  /** The issue this one was closed as a duplicate of (empty or null when none). */
  duplicate_of?: string;
}

/** The tracker's own link table: one row per (issue, pull request) link. */
export interface PrLinksMapping {
  table: string;
  issue: string;
  pr: string;
}

/** Pull requests whose bodies may say "Fixes #N". */
export interface PullRequestsMapping {
  table: string;
  number: string;
  body: string;
  title?: string;
  merged_at?: string;
}

/** Commits whose messages may say "Fixes #N". */
export interface CommitsMapping {
  table: string;
  sha: string;
  message: string;
  committed_at?: string;
}

/** CI runs: one row per test result. */
export interface CiRunsMapping {
  table: string;
  test: string;
  commit: string;
  status: string;
  run_at: string;
  /** Status values that mean failed (compared case-insensitively); default fail, failed, failure, error. */
  fail_values?: string[];
  /** Status values that mean passed; default pass, passed, success, ok. */
  pass_values?: string[];
}

/** The tracker's own duplicate links, when they live in a table of their own (a "marked as duplicate" event log, an issue-link table): one row per (duplicate, original). With `linked_at` a check sees only links recorded before the new issue was opened. */
export interface DuplicateLinksMapping {
  table: string;
  /** The issue closed as a duplicate. */
  issue: string;
  /** The issue it duplicates (its original). */
  duplicate_of: string;
  linked_at?: string;
}

/** Incidents: one row per incident, with the PRs and commits that caused or fixed it. A link column may hold one value (`1234`, `#1234`, `acme/app#1234`, a PR or commit URL, a sha or a prefix of at least 7 hex digits), several separated by commas or spaces, or an Array of them. */
export interface IncidentsMapping {
  table: string;
  id: string;
  title: string;
  started_at: string;
  resolved_at?: string;
  severity?: string;
  status?: string;
  /** A text column: what happened (the post-mortem's summary). */
  summary?: string;
  caused_by_pr?: string;
  caused_by_commit?: string;
  fixed_by_pr?: string;
  fixed_by_commit?: string;
  /** A text column: the repository a row's incident is about (`acme/app` or a Loom repository name). It scopes the row's bare PR numbers (`1234`, `#1234`) to that repository; a PR ref that names its own repository keeps it. Without it, a bare number names that PR in every repository. */
  repo?: string;
}

export interface AppendTurnResponse {
  stored: boolean;
  reason?: 'logging_disabled' | 'duplicate' | 'deleted';
  thread_id: string;
  msg_id: string;
}

export interface BriefDeleteResponse {
  brief_key: string;
  deleted: boolean;
}

export interface BriefGetResponse {
  brief: BriefView;
}

export interface BriefListItem {
  brief_key: string;
  project: string | null;
  branch: string | null;
  revision: number;
  updated_at: string;
  /** One line: the goal, else the status. */
  line: string;
}

export interface BriefListResponse {
  briefs: BriefListItem[];
}

export interface BriefSaveResponse {
  brief_key: string;
  changed: boolean;
  revision: number;
  author?: 'llm' | 'deterministic' | 'model';
  /** `not-revised`: an events-only save with no model to call. */
  reason?: 'not-revised' | 'retry';
  /** Event windows the model revised; those whose call failed, did not parse or was held because the switch could not be read (skipped); and those not sent because the org's model calls were switched off during the save. */
  windows?: {
    revised: number;
    failed: number;
    switched_off: number;
  };
  /** Events, texts and items held back because they read as high (never sent, never stored); absent when none. */
  skipped_high?: number;
}

export interface BriefSections {
  goal: string;
  status: string;
  decisions: string[];
  dead_ends: string[];
  done: string[];
  open_questions: string[];
  next_steps: string[];
  key_files: string[];
  constraints: string[];
  pointers: string[];
}

export interface BriefView {
  brief_key: string;
  project: string | null;
  branch: string | null;
  revision: number;
  author: 'llm' | 'deterministic' | 'model';
  session_id: string | null;
  updated_at: string;
  sections: BriefSections;
  /** The brief as text, under about 12,000 characters. */
  rendered: string;
  /** With `full`: the client's last compaction summary, verbatim. */
  client_summary?: string | null;
}

export interface CodeAddResponse {
  repository: RepositoryView;
}

export interface CodeGithubSyncResponse {
  repository: string;
  source: GithubSourceView;
}

export interface CodeListResponse {
  /** Whether LOOM_CODE_INGEST_ENABLED is on for this deployment. */
  enabled: boolean;
  repositories: RepositoryView[];
}

export interface CompactThreadResponse {
  thread_id: string;
  compacted: boolean;
  /** Turns the summary replaced, earlier summaries not counted. */
  messages_summarized: number;
  /** The new summary turn (a `system` turn with `metadata.compacted_from`). */
  summary_msg_id?: string;
  reason?: 'embed-failed' | 'summary-high-sensitivity' | 'nothing-to-compact';
}

export interface ContextPackResponse {
  query: string;
  scope: {
    user_id: string | null;
    session_id: string | null;
  };
  /** Facts (memory.search), best first. */
  memories: MemoryHit[];
  /** The session's own turns (conversation.search in its thread); empty without session_id. */
  conversation: SearchHit[];
  /** Turns extractions read (memory.recall by words). */
  evidence: RecallHit[];
  /** The session's latest tool actions (observe.list), oldest first; empty without session_id. */
  actions: ObservationView[];
  /** The sections as one text, cut at a line to `max_chars`. */
  pack: string;
  truncated: boolean;
  /** Sections left empty because a dependency was down (e.g. `memories` without the embedder). */
  unavailable: string[];
}

export interface CreateThreadResponse {
  created: boolean;
  reason?: 'logging_disabled';
  thread_id: string;
}

export interface CreateTokenResponse {
  /** Shown once; only its hash is stored. */
  token: string;
  token_id: string;
  namespace: string;
  role: 'viewer' | 'writer' | 'admin';
}

export interface DeleteThreadResponse {
  thread_id: string;
  deleted: boolean;
  /** The calling agent's turns tombstoned. */
  turns_deleted: number;
  /** Shared embedding rows handed to another agent's live copy instead of tombstoned. */
  embeddings_kept: number;
}

export interface DuplicateCandidate {
  id: string;
  title: string;
  state: string | null;
  created_at: string | null;
  url: string | null;
  /** 0..1: how likely this older issue is the one the new issue duplicates. */
  score: number;
  /** Whether the score reaches the live threshold (`tracker_duplicate_threshold`). */
  duplicate: boolean;
  /** Code-like evidence both issues share (error codes, exception names, stack frames). */
  shared: string[];
  /** The issue the new one matched when the tracker records that issue as a duplicate of this one (its `issues.duplicate_of` or `duplicate_links`): the original answers in the known duplicate's place, with its score and shared evidence. Null when this issue matched on its own. */
  via: string | null;
  /** Why this issue stands where the new one matched another; null when it matched on its own. */
  reason: string | null;
}

/** Rows tombstoned (or removed, with purge) per kind. `runs` counts run rows and their usage reports; only a purge removes them (runs carry no person's text). */
export interface ErasedCounts {
  turns: number;
  embeddings: number;
  threads: number;
  memories: number;
  evidence: number;
  briefs: number;
  runs: number;
  observations: number;
}

export interface ErasureExportResponse {
  /** Transcript turns only: embedding rows are never exported. */
  turns: ExportedTurn[];
  next_cursor: string | null;
}

export interface ErasureResponse {
  erasure_id: string;
  /** `pending` until every row is erased (retried after a failure or a crash); `failed` after the last attempt. */
  status: 'pending' | 'done' | 'failed';
  subject: 'user' | 'namespace_list';
  namespaces: '*' | string[];
  /** The counts of the attempt that finished it; null until then. */
  erased: ErasedCounts | null;
  purged: boolean;
  attempts: number;
  /** The last attempt's error, '' when none. */
  last_error: string;
  created_at: string;
  updated_at: string;
}

export interface ExportedTurn {
  namespace: string;
  thread_id: string;
  agent: string;
  msg_id: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  reasoning: string;
  user_id: string | null;
  run_id: string | null;
  ts: string;
  is_saved: boolean;
  deleted: boolean;
  deleted_at: string | null;
}

export interface ExtractionStatusResponse {
  extraction_id: string;
  /** pending (waiting or retrying), done, or failed (every attempt failed; the evidence is kept). */
  status: 'pending' | 'done' | 'failed';
  /** Facts stored; null until done. */
  facts: number | null;
  attempts: number;
  /** What the last failed attempt said (the provider's error; never the messages). */
  last_error: string | null;
  /** When a pending extraction is next tried. */
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface FlakyRun {
  commit: string;
  status: string;
  run_at: string;
}

export interface FlakyTest {
  test: string;
  /** Commits on which the test both failed and passed. */
  flaky_commits: number;
  failures: number;
  passes: number;
  last_seen: string;
  latest_runs: FlakyRun[];
}

export interface GetThreadResponse {
  thread: ThreadView;
  messages?: TurnView[];
  next_cursor?: string | null;
}

export interface GithubSourceView {
  /** owner/name on GitHub. */
  github: string;
  api_url: string;
  state: 'failed' | 'ready' | 'interrupted' | 'syncing' | 'paused';
  /** Why it paused, failed or was interrupted, and what to do; null otherwise. */
  reason: string | null;
  /** The command that resumes a sync that is not running (paused, failed, interrupted); null otherwise. */
  resume: string | null;
  /** When a rate limit ends and the sync goes on by itself; null when it is not waiting. */
  resume_at: string | null;
  /** Which token the last sync used: the op's (`request`), LOOM_GITHUB_TOKEN (`config`) or none. Never the token. */
  token: 'request' | 'config' | 'none';
  pull_requests: number;
  review_comments: number;
  issues: number;
  /** API requests the last sync made. */
  requests: number;
  /** When a sync last finished. */
  synced_at: string | null;
  updated_at: string;
}

export interface HistoryBisectResponse {
  repository: string;
  /** The commits ranked: after `from` (excluded) up to `to` (included). */
  range: {
    from: string | null;
    to: string;
    commits: number;
  };
  /** Most likely first. */
  candidates: RankedChangeView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: string | null;
}

export interface HistoryDuplicateCheckResponse {
  repository: string;
  /** Best first: merged changes (mainline commits, with their PR when one is known) and, with a GitHub source, open PRs. */
  candidates: RankedChangeView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: string | null;
}

export interface HistoryLineResponse {
  repository: string;
  path: string;
  line: number;
  /** The commit the line number refers to. */
  ref: string;
  /** The chain of commits that wrote this line, newest first, ending at its origin when indexed. */
  changes: LineChangeView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: string | null;
}

export interface HistoryPathResponse {
  repository: string;
  path: string;
  /** Newest first. */
  changes: PathChangeView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: string | null;
}

export interface HistoryReviewBriefResponse {
  repository: string;
  pr_number: number;
  sha: string;
  title: string;
  /** What the change did, in a few sentences. */
  what_changed: string;
  /** Why, from its description (or the model's reading of it). */
  why: string;
  files: ReviewFileView[];
  symbols: string[];
  /** From the GitHub source, when one was synced; else empty. Oldest first. */
  review_comments: ReviewCommentView[];
  /** Issues it names with Fixes/Closes/Resolves #N (commit message and PR description). */
  linked_issues: number[];
  /** Those issues as the GitHub source knows them (title, state, how they closed). */
  issues: LinkedIssueView[];
  /** `model` when the LLM provider condensed it, `builder` otherwise. */
  written_by: 'model' | 'builder';
  /** Paragraphs or comments that read as high: never sent to a model nor shown. */
  withheld: number;
  /** The runs that named this PR on completion (run.complete pull_requests), oldest first. */
  runs: string[];
  /** Incidents that name this PR or its commit as their cause or fix (PRHIST-02). */
  incidents: IncidentLinkView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: string | null;
}

export interface HistorySymbolResponse {
  repository: string;
  symbol: string;
  /** Newest first. */
  changes: SymbolChangeView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: string | null;
}

/** An incident as a history answer carries it: linked to that commit or its PR. */
export interface IncidentLinkView {
  id: string;
  title: string;
  severity: string | null;
  status: string | null;
  started_at: string | null;
  resolved_at: string | null;
  /** `caused`: the incident names this commit or PR as its cause; `fixed`: as its fix. */
  role: 'caused' | 'fixed';
  /** What matched: the commit's sha or its PR number. */
  via: 'commit' | 'pr';
}

/** A pull request an incident names, with the repository it names when it names one. */
export interface IncidentPrRef {
  /** The repository as the incident named it (`acme/app` from `acme/app#1234` or a pull request URL, or a Loom repository name from `app#1234`), or the row's `repo` column (when the mapping names one) for a bare number. Null for a bare `1234`/`#1234` with no `repo` column: that names PR 1234 in every repository of the namespace. */
  repository: string | null;
  number: number;
}

/** The PRs and commits an incident names, normalised: PR numbers, and commit shas (or prefixes) in lower case. */
export interface IncidentRefs {
  /** Every PR number named, whatever its repository (`pr_refs` says which). */
  prs: number[];
  /** Each PR named, with its repository when the incident named one. */
  pr_refs: IncidentPrRef[];
  commits: string[];
}

export interface IncidentView {
  id: string;
  title: string;
  severity: string | null;
  status: string | null;
  /** Null only when the source's start column holds NULL. */
  started_at: string | null;
  resolved_at: string | null;
  /** The summary column, cut to 2,000 characters; null when none is mapped. */
  summary: string | null;
  /** The row's `repo` column (`mapping.incidents.repo`) as the team wrote it, without a URL's scheme and host or a trailing `.git`; null when none is mapped or the cell is empty. With it, or with PR refs that name their repositories, an incident is of those repositories only: bisect counts its start time as evidence only there. */
  repository: string | null;
  caused_by: IncidentRefs;
  fixed_by: IncidentRefs;
}

export interface IssueLink {
  /** A pull request number, or a commit sha for commit messages. */
  pr: string | null;
  sha: string | null;
  source: 'link_table' | 'pr_body' | 'commit_message';
  /** The phrase that made the link ("Fixes #12"); null for the link table. */
  phrase: string | null;
}

export type JsonObject = Record<string, unknown>;

export interface LineChangeView {
  path: string;
  /** The line's number in the file after this commit. */
  line: number;
  /** True for the commit that first wrote the line. */
  origin: boolean;
  sha: string;
  /** The pull request it landed (squash "(#N)" or "Merge pull request #N"), else null. */
  pr_number: number | null;
  subject: string;
  author: string;
  committed_at: string;
  /** The PR's title, from the GitHub source; null without one. */
  pr_title: string | null;
  /** The runs that named its PR on completion (run.complete pull_requests), oldest first. */
  runs: string[];
  /** Incidents of the tracker source that name this commit or its PR as their cause or fix (PRHIST-02), oldest start first. */
  incidents: IncidentLinkView[];
}

export interface LinkedIssueView {
  number: number;
  /** Null when the issue is not in the GitHub source (or its title reads as high). */
  title: string | null;
  state: 'open' | 'closed' | null;
  /** completed, not_planned, duplicate, reopened; null when GitHub gives none. */
  state_reason: string | null;
  closed_at: string | null;
}

export interface ListSavedMessagesResponse {
  messages: SavedMessageItem[];
  next_cursor: string | null;
}

export interface ListThreadsResponse {
  threads: ThreadSummaryView[];
}

export interface ListTokensResponse {
  /** Newest first: the tokens the caller could revoke, of the namespace the request names (every one it covers when it names none). */
  tokens: TokenInfo[];
}

export interface ListTurnsResponse {
  messages: TurnView[];
  next_cursor: string | null;
}

export interface MemoryHit {
  memory_id: string;
  text: string;
  user_id: string | null;
  source: string;
  score: number;
  created_at: string;
}

export interface ObservationView {
  session_id: string;
  obs_id: string;
  agent: string;
  user_id: string | null;
  tool: string;
  summary: string;
  path: string | null;
  outcome: 'ok' | 'error' | 'unknown';
  ts: string;
  /** When the observation went into a crystallization (memory extraction); null before. */
  crystallized_at: string | null;
}

export interface ObserveCrystallizeResponse {
  session_id: string;
  /** Observations handed to extraction (those not crystallized before). */
  observations: number;
  /** The memory extraction that reads them; null when there was nothing new. */
  extraction_id: string | null;
  deferred: boolean;
  facts?: number;
}

export interface ObserveListResponse {
  observations: ObservationView[];
}

export interface ObserveRecordResponse {
  session_id: string;
  /** Observations kept (one sent again counts here and is stored once). */
  recorded: number;
  /** Observations whose summary or path reads as high: never stored. */
  skipped_high: number;
}

export interface PathChangeView {
  path: string;
  /** Set when the commit renamed the file to `path`. */
  old_path: string | null;
  change: 'deleted' | 'added' | 'modified' | 'renamed';
  additions: number;
  deletions: number;
  sha: string;
  /** The pull request it landed (squash "(#N)" or "Merge pull request #N"), else null. */
  pr_number: number | null;
  subject: string;
  author: string;
  committed_at: string;
  /** The PR's title, from the GitHub source; null without one. */
  pr_title: string | null;
  /** The runs that named its PR on completion (run.complete pull_requests), oldest first. */
  runs: string[];
  /** Incidents of the tracker source that name this commit or its PR as their cause or fix (PRHIST-02), oldest start first. */
  incidents: IncidentLinkView[];
}

export interface QuarantineDropResponse {
  results: Array<{
    id: string;
    outcome: 'not_found' | 'dropped';
  }>;
}

export interface QuarantinedRow {
  id: string;
  /** The table the row was bound for. */
  table: string;
  /** The row's key columns as JSON (namespace, thread, agent, msg_id, version…), never its text. */
  key: string;
  /** What the engine answered the last time it refused the row. */
  error: string;
  attempts: number;
  quarantined_at: string;
  /** With include_rows: the row as JSON text. */
  row?: string;
}

export interface QuarantineListResponse {
  rows: QuarantinedRow[];
}

export interface QuarantineRetryResponse {
  results: Array<{
    id: string;
    outcome: 'stored';
  } | {
    id: string;
    outcome: 'refused';
    error: string;
  } | {
    id: string;
    outcome: 'not_found';
  }>;
}

export interface RankedChangeView {
  /** `merged`: on the mainline (or a merged PR); `open`: an open PR from the GitHub source (sha is its head). */
  state: 'open' | 'merged';
  /** 0-1: higher is more likely. */
  score: number;
  /** Why it is here, in words: shared terms, files, symbols. */
  reasons: string[];
  files_in_common: string[];
  symbols_in_common: string[];
  sha: string;
  /** The pull request it landed (squash "(#N)" or "Merge pull request #N"), else null. */
  pr_number: number | null;
  subject: string;
  author: string;
  committed_at: string;
  /** The PR's title, from the GitHub source; null without one. */
  pr_title: string | null;
  /** The runs that named its PR on completion (run.complete pull_requests), oldest first. */
  runs: string[];
  /** Incidents of the tracker source that name this commit or its PR as their cause or fix (PRHIST-02), oldest start first. */
  incidents: IncidentLinkView[];
}

export interface RecallHit {
  extraction_id: string;
  session_id: string | null;
  user_id: string | null;
  role: 'user' | 'assistant' | 'system' | 'tool';
  ts: string;
  excerpt: string;
  score: number | null;
}

export interface RecallResponse {
  hits: RecallHit[];
}

export interface RepositoryView {
  name: string;
  path: string;
  ref: string;
  state: 'failed' | 'ingesting' | 'ready' | 'interrupted';
  /** Why the last ingest failed or was interrupted, and what to do; null otherwise. */
  error: string | null;
  /** The command that resumes a failed or interrupted ingest from its checkpoint; null otherwise. */
  resume: string | null;
  commits_indexed: number;
  commits_total: number;
  head: string | null;
  updated_at: string;
  /** Its GitHub source (`code.github_sync`), or null when it has none. */
  github: GithubSourceView | null;
}

export interface ReviewCommentView {
  /** `review`: a review's verdict and summary; `comment`: a comment on lines of the diff. */
  kind: 'review' | 'comment';
  id: number;
  author: string;
  path: string | null;
  /** The commented line in the PR's last version; null for reviews and outdated comments. */
  line: number | null;
  body: string;
  /** A review's verdict: APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED; null for comments. */
  state: string | null;
  /** The comment this one answers (a thread's reply); null otherwise. */
  in_reply_to: number | null;
  created_at: string;
  /** Whether a later commit of the PR changed the commented lines; null when unknown. */
  resolved: boolean | null;
  /** How it ended, in words. */
  resolution: string;
}

export interface ReviewFileView {
  path: string;
  change: 'deleted' | 'added' | 'modified' | 'renamed';
  additions: number;
  deletions: number;
}

export interface RevokeTokenResponse {
  token_id: string;
  revoked: boolean;
}

export interface RunListResponse {
  runs: RunView[];
  /** Summed over the listed runs. */
  model_cost: RunModelCost | null;
}

export interface RunModelCost {
  /** Models with no price: their tokens are counted and their cost is left out of cost_usd. */
  unpriced_models: string[];
  by_model: Array<{
    reports: number;
    input_tokens: number;
    output_tokens: number;
    cache_write_tokens: number;
    cache_write_1h_tokens: number;
    cache_read_tokens: number;
    /** In US dollars at the prices Loom had when each report arrived; null when no report could be priced. */
    cost_usd: number | null;
    model: string;
  }>;
  reports: number;
  input_tokens: number;
  output_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  cache_read_tokens: number;
  /** In US dollars at the prices Loom had when each report arrived; null when no report could be priced. */
  cost_usd: number | null;
}

export interface RunPullRequestView {
  number: number;
  repository: string | null;
  url: string | null;
}

export interface RunReportUsageResponse {
  run_id: string;
  /** Reports taken in this call (a report sent again counts here, and once in the totals). */
  accepted: number;
  /** Whether this call began the run. */
  began: boolean;
  model_cost: RunModelCost;
}

export interface RunResponse {
  run: RunView;
}

export interface RunView {
  run_id: string;
  agent: string;
  goal: string;
  status: 'failed' | 'running' | 'succeeded' | 'abandoned' | 'ended' | 'idle_closed';
  outcome: string | null;
  memories_used: string[];
  wrote: string[];
  /** The pull requests it named on completion. */
  pull_requests: RunPullRequestView[];
  /** `api` (run.begin), `mcp` (an MCP session's implicit run) or `capture` (a capture hook's usage report). */
  source: 'api' | 'mcp' | 'capture';
  started_at: string;
  last_activity_at: string;
  ended_at: string | null;
  /** The model usage the client reported, priced; null when none was reported (reporting off). */
  model_cost: RunModelCost | null;
}

/** A hit is a listed saved message with its score and the legs that found it. */
export interface SavedMessageHit {
  /** Reciprocal-rank-fused score in hybrid mode; cosine in semantic; BM25 in lexical. */
  score: number;
  /** Which legs found it. */
  matched: Array<'lexical' | 'semantic'>;
  conversation_id: string;
  message_id: string;
  agent: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  /** When the user saved it (the message time for rows an earlier build saved without one). */
  ts: string;
  /** The message's own time in the transcript. */
  message_ts: string;
  excerpt: string;
}

export interface SavedMessageItem {
  conversation_id: string;
  message_id: string;
  agent: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  /** When the user saved it (the message time for rows an earlier build saved without one). */
  ts: string;
  /** The message's own time in the transcript. */
  message_ts: string;
  excerpt: string;
}

export interface SavedStatusResponse {
  conversation_id: string;
  /** Every requested id: true when this user has it saved. */
  saved: Record<string, boolean>;
}

export interface SaveMessageResponse {
  /** True when the message is saved and has its vector. */
  indexed: boolean;
  reason?: 'deleted' | 'owner_mismatch' | 'unsupported_role' | 'high_sensitivity' | 'embed_failed';
  /** True when the message is stored and flagged saved (also with `embed_failed`). */
  saved: boolean;
  conversation_id: string;
  message_id: string;
  /** When the user saved it (ISO 8601). */
  saved_at?: string;
}

export interface SearchHit {
  namespace: string;
  thread_id: string;
  msg_id: string;
  agent: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  run_id: string | null;
  user_id: string | null;
  ts: string;
  /** Cosine similarity in vector mode, BM25 in lexical mode, the reciprocal-rank-fused score in hybrid mode; null in the substring fallback. */
  score: number | null;
  /** The first characters of the turn, or (a hit found by its words) the text around the first matched term. */
  excerpt: string;
}

export interface SearchMemoryResponse {
  hits: MemoryHit[];
}

export interface SearchSavedMessagesResponse {
  hits: SavedMessageHit[];
  /** The mode that answered: `lexical` when the embedder was unavailable for a hybrid or semantic call. */
  mode: 'hybrid' | 'lexical' | 'semantic';
}

export interface SearchTurnsResponse {
  hits: SearchHit[];
  /** What ran: `hybrid`, `vector` or `lexical` as asked; `lexical` for a hybrid search the embedder could not serve; `substring` for a vector search it could not serve. */
  mode: 'hybrid' | 'vector' | 'lexical' | 'substring';
}

export interface SetFromMessagesResponse {
  extraction_id: string;
  /** True when extraction runs in the background (defer). */
  deferred: boolean;
  /** Messages kept as evidence (high ones never are). */
  evidence: number;
  skipped_high: number;
  /** Facts extracted (absent while deferred); 0 with the fake LLM. */
  facts?: number;
}

export interface SetLoggingResponse {
  namespace: string;
  conversation_logging_enabled: boolean;
}

export interface SetMemoryResponse {
  memory_id: string | null;
  stored: boolean;
  /** `high_sensitivity`: a fact that reads as high is never stored. */
  reason?: 'high_sensitivity';
}

export interface SettingsResponse {
  conversation_search_excerpt_chars: number;
  conversation_search_min_similarity: number;
  session_brief_model_calls: number;
  conversation_search_default_mode: 'hybrid' | 'vector' | 'lexical';
  tracker_duplicate_threshold: number;
}

export interface SymbolChangeView {
  symbol: string;
  path: string;
  lines_added: number;
  lines_removed: number;
  /** `parser` (a grammar's definition) or `header` (git's hunk header, for files no grammar reads). */
  source: 'parser' | 'header';
  sha: string;
  /** The pull request it landed (squash "(#N)" or "Merge pull request #N"), else null. */
  pr_number: number | null;
  subject: string;
  author: string;
  committed_at: string;
  /** The PR's title, from the GitHub source; null without one. */
  pr_title: string | null;
  /** The runs that named its PR on completion (run.complete pull_requests), oldest first. */
  runs: string[];
  /** Incidents of the tracker source that name this commit or its PR as their cause or fix (PRHIST-02), oldest start first. */
  incidents: IncidentLinkView[];
}

export interface ThreadSummaryView {
  thread_id: string;
  agents: string[];
  title: string;
  excerpt: string;
  last_role: 'user' | 'assistant' | 'system' | 'tool' | null;
  last_activity_at: string;
  turn_count: number;
  run_id: string | null;
  metadata: JsonObject;
}

export interface ThreadView {
  namespace: string;
  thread_id: string;
  title: string | null;
  metadata: JsonObject;
  run_id: string | null;
  created_at: string | null;
  last_activity_at: string | null;
  turn_count: number;
}

/** What `token.list` says of a token: never the token itself, nor its hash. */
export interface TokenInfo {
  token_id: string;
  label: string;
  role: 'viewer' | 'writer' | 'admin';
  /** The namespaces it acts on; ["*"] for every namespace. */
  namespaces: string[];
  read_scope: 'all' | 'own_user' | 'own_session';
  read_user_id: string | null;
  read_session_id: string | null;
  created_at: string;
  /** When it last authenticated a call (tracked to the minute); null if never. */
  last_used_at: string | null;
  revoked: boolean;
  revoked_at: string | null;
}

export interface TrackerDuplicateCheckResponse {
  candidates: DuplicateCandidate[];
  threshold: number;
  /** Older issues read from the source and ranked. */
  considered: number;
}

export interface TrackerFlakyTestsResponse {
  tests: FlakyTest[];
  /** Pass as offset for the next page; null when this page is the last. */
  next_offset: number | null;
}

export interface TrackerIncidentsResponse {
  /** Newest start first. */
  incidents: IncidentView[];
  /** Pass as offset for the next page; null when this page is the last. */
  next_offset: number | null;
}

export interface TrackerIssueLinksResponse {
  issue: string;
  links: IssueLink[];
}

export interface TrackerSourceRegisterResponse {
  registered: true;
  enabled: boolean;
  source: TrackerSourceView;
  /** Rows in the issues table when registered (a reachability and mapping check). */
  issues: number;
}

/** The registered source as answered: never the password. */
export interface TrackerSourceView {
  connection: {
    url: string;
    user: string | null;
    database: string;
    password_set: boolean;
  };
  /** The column mapping as registered: per table (`issues`, `pr_links`, …), its table and column names. */
  mapping: Record<string, Record<string, string>>;
  issue_url_base: string | null;
  registered_at: string;
}

export interface TrackerStatusResponse {
  enabled: boolean;
  /** LOOM_TRACKER_ORG, or null when unset. */
  org: string | null;
  source_registered: boolean;
  /** Why the plane is off and how to turn it on; null when on. */
  reason: string | null;
  source: TrackerSourceView | null;
}

export interface TurnView {
  thread_id: string;
  msg_id: string;
  agent: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  reasoning: string;
  user_id: string | null;
  run_id: string | null;
  metadata: JsonObject;
  tokens: number | null;
  ts: string;
  is_saved: boolean;
  saved_at: string | null;
}

export interface UnsaveMessageResponse {
  /** False when this user has no saved message by that id (never saved, or another user's). */
  found: boolean;
  /** True when the namespace does not record, so the message left the transcript too. */
  removed?: boolean;
  conversation_id: string;
  message_id: string;
}

export interface WhoamiResponse {
  token_id: string;
  role: 'viewer' | 'writer' | 'admin';
  /** The namespaces it acts on; ["*"] for every namespace (deployment-wide ops such as settings.set need that). */
  namespaces: string[];
  /** The namespace this call resolved to (the one named, else the token's only one). */
  namespace: string;
  read_scope: 'all' | 'own_user' | 'own_session';
  read_user_id: string | null;
  read_session_id: string | null;
}

/** One bad field: its path (`messages[1].content`, `metadata.a`) and what is wrong with it. */
export interface FieldError {
  field: string;
  message: string;
}

/** The one error shape of every op. */
export interface ErrorBody {
  error: {
    code: 'invalid_input' | 'unauthorized' | 'forbidden' | 'not_found' | 'unknown_op' | 'conflict' | 'payload_too_large' | 'rate_limited' | 'internal' | 'not_configured' | 'unavailable';
    message: string;
    /** With invalid_input (and some payload_too_large): each bad field, at most 50. */
    fields?: FieldError[];
    /** Also in the loom-correlation-id header; quote it when reporting a problem. */
    correlation_id: string;
  };
}

/** Every op, as `POST /v1/ops/<op>` names it. */
export const OP_NAMES = [
  'conversation.set_logging',
  'conversation.get_logging',
  'conversation.append',
  'conversation.create',
  'conversation.update',
  'conversation.get',
  'conversation.list',
  'conversation.threads',
  'conversation.search',
  'conversation.compact',
  'conversation.delete',
  'conversation.save_message',
  'conversation.unsave_message',
  'conversation.search_saved_messages',
  'conversation.list_saved_messages',
  'conversation.saved_status',
  'memory.set',
  'memory.set_from_messages',
  'memory.search',
  'memory.recall',
  'memory.extraction_status',
  'context.pack',
  'observe.record',
  'observe.list',
  'observe.crystallize',
  'session.brief_save',
  'session.brief_get',
  'session.brief_list',
  'session.brief_delete',
  'erasure.request',
  'erasure.status',
  'erasure.export',
  'run.begin',
  'run.complete',
  'run.get',
  'run.list',
  'run.report_usage',
  'token.create',
  'token.revoke',
  'token.list',
  'token.whoami',
  'settings.get',
  'settings.set',
  'code.add',
  'code.github_sync',
  'code.list',
  'history.path',
  'history.symbol',
  'history.line',
  'history.review_brief',
  'history.duplicate_check',
  'history.bisect',
  'tracker.status',
  'tracker.source_register',
  'tracker.duplicate_check',
  'tracker.issue_links',
  'tracker.flaky_tests',
  'tracker.incidents',
  'quarantine.list',
  'quarantine.retry',
  'quarantine.drop'
] as const;
export type OpName = (typeof OP_NAMES)[number];

/** The least role each op needs (viewer < writer < admin). */
export const OP_ROLES: { readonly [O in OpName]: 'viewer' | 'writer' | 'admin' } = {
  'conversation.set_logging': 'admin',
  'conversation.get_logging': 'viewer',
  'conversation.append': 'writer',
  'conversation.create': 'writer',
  'conversation.update': 'writer',
  'conversation.get': 'viewer',
  'conversation.list': 'viewer',
  'conversation.threads': 'viewer',
  'conversation.search': 'viewer',
  'conversation.compact': 'writer',
  'conversation.delete': 'admin',
  'conversation.save_message': 'writer',
  'conversation.unsave_message': 'writer',
  'conversation.search_saved_messages': 'viewer',
  'conversation.list_saved_messages': 'viewer',
  'conversation.saved_status': 'viewer',
  'memory.set': 'writer',
  'memory.set_from_messages': 'writer',
  'memory.search': 'viewer',
  'memory.recall': 'viewer',
  'memory.extraction_status': 'viewer',
  'context.pack': 'viewer',
  'observe.record': 'writer',
  'observe.list': 'viewer',
  'observe.crystallize': 'writer',
  'session.brief_save': 'writer',
  'session.brief_get': 'viewer',
  'session.brief_list': 'viewer',
  'session.brief_delete': 'writer',
  'erasure.request': 'admin',
  'erasure.status': 'admin',
  'erasure.export': 'admin',
  'run.begin': 'writer',
  'run.complete': 'writer',
  'run.get': 'viewer',
  'run.list': 'viewer',
  'run.report_usage': 'writer',
  'token.create': 'admin',
  'token.revoke': 'admin',
  'token.list': 'admin',
  'token.whoami': 'viewer',
  'settings.get': 'viewer',
  'settings.set': 'admin',
  'code.add': 'admin',
  'code.github_sync': 'admin',
  'code.list': 'viewer',
  'history.path': 'viewer',
  'history.symbol': 'viewer',
  'history.line': 'viewer',
  'history.review_brief': 'viewer',
  'history.duplicate_check': 'viewer',
  'history.bisect': 'viewer',
  'tracker.status': 'viewer',
  'tracker.source_register': 'admin',
  'tracker.duplicate_check': 'viewer',
  'tracker.issue_links': 'viewer',
  'tracker.flaky_tests': 'viewer',
  'tracker.incidents': 'viewer',
  'quarantine.list': 'admin',
  'quarantine.retry': 'admin',
  'quarantine.drop': 'admin',
};

/** What each op takes. */
export interface OpRequests {
  'conversation.set_logging': SetLoggingRequest;
  'conversation.get_logging': GetLoggingRequest;
  'conversation.append': AppendTurnRequest;
  'conversation.create': CreateThreadRequest;
  'conversation.update': UpdateThreadRequest;
  'conversation.get': GetThreadRequest;
  'conversation.list': ListTurnsRequest;
  'conversation.threads': ListThreadsRequest;
  'conversation.search': SearchTurnsRequest;
  'conversation.compact': CompactThreadRequest;
  'conversation.delete': DeleteThreadRequest;
  'conversation.save_message': SaveMessageRequest;
  'conversation.unsave_message': UnsaveMessageRequest;
  'conversation.search_saved_messages': SearchSavedMessagesRequest;
  'conversation.list_saved_messages': ListSavedMessagesRequest;
  'conversation.saved_status': SavedStatusRequest;
  'memory.set': SetMemoryRequest;
  'memory.set_from_messages': SetFromMessagesRequest;
  'memory.search': SearchMemoryRequest;
  'memory.recall': RecallRequest;
  'memory.extraction_status': ExtractionStatusRequest;
  'context.pack': ContextPackRequest;
  'observe.record': ObserveRecordRequest;
  'observe.list': ObserveListRequest;
  'observe.crystallize': ObserveCrystallizeRequest;
  'session.brief_save': BriefSaveRequest;
  'session.brief_get': BriefGetRequest;
  'session.brief_list': BriefListRequest;
  'session.brief_delete': BriefDeleteRequest;
  'erasure.request': ErasureRequest;
  'erasure.status': ErasureStatusRequest;
  'erasure.export': ErasureExportRequest;
  'run.begin': RunBeginRequest;
  'run.complete': RunCompleteRequest;
  'run.get': RunGetRequest;
  'run.list': RunListRequest;
  'run.report_usage': RunReportUsageRequest;
  'token.create': CreateTokenRequest;
  'token.revoke': RevokeTokenRequest;
  'token.list': ListTokensRequest;
  'token.whoami': WhoamiRequest;
  'settings.get': GetSettingsRequest;
  'settings.set': SetSettingRequest;
  'code.add': CodeAddRequest;
  'code.github_sync': CodeGithubSyncRequest;
  'code.list': CodeListRequest;
  'history.path': HistoryPathRequest;
  'history.symbol': HistorySymbolRequest;
  'history.line': HistoryLineRequest;
  'history.review_brief': HistoryReviewBriefRequest;
  'history.duplicate_check': HistoryDuplicateCheckRequest;
  'history.bisect': HistoryBisectRequest;
  'tracker.status': TrackerStatusRequest;
  'tracker.source_register': TrackerSourceRegisterRequest;
  'tracker.duplicate_check': TrackerDuplicateCheckRequest;
  'tracker.issue_links': TrackerIssueLinksRequest;
  'tracker.flaky_tests': TrackerFlakyTestsRequest;
  'tracker.incidents': TrackerIncidentsRequest;
  'quarantine.list': QuarantineListRequest;
  'quarantine.retry': QuarantineRetryRequest;
  'quarantine.drop': QuarantineDropRequest;
}

/** What each op answers with a 200. */
export interface OpResponses {
  'conversation.set_logging': SetLoggingResponse;
  'conversation.get_logging': SetLoggingResponse;
  'conversation.append': AppendTurnResponse;
  'conversation.create': CreateThreadResponse;
  'conversation.update': GetThreadResponse;
  'conversation.get': GetThreadResponse;
  'conversation.list': ListTurnsResponse;
  'conversation.threads': ListThreadsResponse;
  'conversation.search': SearchTurnsResponse;
  'conversation.compact': CompactThreadResponse;
  'conversation.delete': DeleteThreadResponse;
  'conversation.save_message': SaveMessageResponse;
  'conversation.unsave_message': UnsaveMessageResponse;
  'conversation.search_saved_messages': SearchSavedMessagesResponse;
  'conversation.list_saved_messages': ListSavedMessagesResponse;
  'conversation.saved_status': SavedStatusResponse;
  'memory.set': SetMemoryResponse;
  'memory.set_from_messages': SetFromMessagesResponse;
  'memory.search': SearchMemoryResponse;
  'memory.recall': RecallResponse;
  'memory.extraction_status': ExtractionStatusResponse;
  'context.pack': ContextPackResponse;
  'observe.record': ObserveRecordResponse;
  'observe.list': ObserveListResponse;
  'observe.crystallize': ObserveCrystallizeResponse;
  'session.brief_save': BriefSaveResponse;
  'session.brief_get': BriefGetResponse;
  'session.brief_list': BriefListResponse;
  'session.brief_delete': BriefDeleteResponse;
  'erasure.request': ErasureResponse;
  'erasure.status': ErasureResponse;
  'erasure.export': ErasureExportResponse;
  'run.begin': RunResponse;
  'run.complete': RunResponse;
  'run.get': RunResponse;
  'run.list': RunListResponse;
  'run.report_usage': RunReportUsageResponse;
  'token.create': CreateTokenResponse;
  'token.revoke': RevokeTokenResponse;
  'token.list': ListTokensResponse;
  'token.whoami': WhoamiResponse;
  'settings.get': SettingsResponse;
  'settings.set': SettingsResponse;
  'code.add': CodeAddResponse;
  'code.github_sync': CodeGithubSyncResponse;
  'code.list': CodeListResponse;
  'history.path': HistoryPathResponse;
  'history.symbol': HistorySymbolResponse;
  'history.line': HistoryLineResponse;
  'history.review_brief': HistoryReviewBriefResponse;
  'history.duplicate_check': HistoryDuplicateCheckResponse;
  'history.bisect': HistoryBisectResponse;
  'tracker.status': TrackerStatusResponse;
  'tracker.source_register': TrackerSourceRegisterResponse;
  'tracker.duplicate_check': TrackerDuplicateCheckResponse;
  'tracker.issue_links': TrackerIssueLinksResponse;
  'tracker.flaky_tests': TrackerFlakyTestsResponse;
  'tracker.incidents': TrackerIncidentsResponse;
  'quarantine.list': QuarantineListResponse;
  'quarantine.retry': QuarantineRetryResponse;
  'quarantine.drop': QuarantineDropResponse;
}
