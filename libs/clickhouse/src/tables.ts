/**
 * The only place that knows table names. Names are fully qualified because the embedded engine
 * ignores the client's `database` option; the database name is checked to be a plain identifier
 * at config time, so interpolating it is safe (values always go through query parameters).
 */
export interface Tables {
  database: string;
  migrations: string;
  namespaces: string;
  conversations: string;
  conversationEmbeddings: string;
  conversationTerms: string;
  savedTerms: string;
  savedDocs: string;
  conversationThreads: string;
  apiTokens: string;
  apiTokenUsage: string;
  settings: string;
  memories: string;
  memoryEvidence: string;
  memoryExtractions: string;
  observations: string;
  mcpSessions: string;
  erasureRequests: string;
  sessionBriefs: string;
  sessionBriefRevisions: string;
  runs: string;
  runUsage: string;
  writeQuarantine: string;
  trackerSources: string;
  codeRepositories: string;
  codeCommits: string;
  codeFileChanges: string;
  codeHunks: string;
  codeSymbolChanges: string;
  codeGithubSources: string;
  codePullRequests: string;
  codeReviewComments: string;
  codeIssues: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function tablesFor(database: string): Tables {
  if (!IDENTIFIER.test(database)) throw new Error(`not a plain identifier: ${JSON.stringify(database)}`);
  return {
    database,
    migrations: `${database}.schema_migrations`,
    namespaces: `${database}.namespaces`,
    conversations: `${database}.conversations`,
    conversationEmbeddings: `${database}.conversation_embeddings`,
    conversationTerms: `${database}.conversation_terms`,
    savedTerms: `${database}.saved_terms`,
    savedDocs: `${database}.saved_docs`,
    conversationThreads: `${database}.conversation_threads`,
    apiTokens: `${database}.api_tokens`,
    apiTokenUsage: `${database}.api_token_usage`,
    settings: `${database}.settings`,
    memories: `${database}.memories`,
    memoryEvidence: `${database}.memory_evidence`,
    memoryExtractions: `${database}.memory_extractions`,
    observations: `${database}.observations`,
    mcpSessions: `${database}.mcp_sessions`,
    erasureRequests: `${database}.erasure_requests`,
    sessionBriefs: `${database}.session_briefs`,
    sessionBriefRevisions: `${database}.session_brief_revisions`,
    runs: `${database}.runs`,
    runUsage: `${database}.run_usage`,
    writeQuarantine: `${database}.write_quarantine`,
    trackerSources: `${database}.tracker_sources`,
    codeRepositories: `${database}.code_repositories`,
    codeCommits: `${database}.code_commits`,
    codeFileChanges: `${database}.code_file_changes`,
    codeHunks: `${database}.code_hunks`,
    codeSymbolChanges: `${database}.code_symbol_changes`,
    codeGithubSources: `${database}.code_github_sources`,
    codePullRequests: `${database}.code_pull_requests`,
    codeReviewComments: `${database}.code_review_comments`,
    codeIssues: `${database}.code_issues`,
  };
}
