import type { ErrorCode } from './errors';
import type { Role } from './roles';
import type { AppendTurnResponse, CompactThreadResponse, CreateThreadResponse, DeleteThreadResponse, GetThreadResponse, ListThreadsResponse, ListTurnsResponse, SearchTurnsResponse, SetLoggingResponse } from './conversations/conversation.dto';
import type { ListSavedMessagesResponse, SavedStatusResponse, SaveMessageResponse, SearchSavedMessagesResponse, UnsaveMessageResponse } from './conversations/saved.dto';
import type { CreateTokenResponse, ListTokensResponse, RevokeTokenResponse, WhoamiResponse } from './auth/token.dto';
import type { BriefDeleteResponse, BriefGetResponse, BriefListResponse, BriefSaveResponse } from './briefs/brief.dto';
import type { ErasureExportResponse, ErasureResponse } from './erasure/erasure.dto';
import type { RunListResponse, RunReportUsageResponse, RunResponse } from './runs/run.dto';
import type { ExtractionStatusResponse, RecallResponse, SearchMemoryResponse, SetFromMessagesResponse, SetMemoryResponse } from './memory/memory.dto';
import type { SettingsResponse } from './settings/settings.dto';
import type { ContextPackResponse } from './context/context.dto';
import type { ObserveCrystallizeResponse, ObserveListResponse, ObserveRecordResponse } from './observe/observe.dto';
import type { QuarantineDropResponse, QuarantineListResponse, QuarantineRetryResponse } from './quarantine/quarantine.dto';
import {
  AppendTurnRequest,
  CompactThreadRequest,
  DeleteThreadRequest,
  CreateThreadRequest,
  GetLoggingRequest,
  GetThreadRequest,
  ListThreadsRequest,
  ListTurnsRequest,
  SearchTurnsRequest,
  SetLoggingRequest,
  UpdateThreadRequest,
} from './conversations/conversation.dto';
import { CreateTokenRequest, ListTokensRequest, RevokeTokenRequest, WhoamiRequest } from './auth/token.dto';
import { BriefDeleteRequest, BriefGetRequest, BriefListRequest, BriefSaveRequest } from './briefs/brief.dto';
import { ErasureExportRequest, ErasureRequest, ErasureStatusRequest } from './erasure/erasure.dto';
import { RunBeginRequest, RunCompleteRequest, RunGetRequest, RunListRequest, RunReportUsageRequest } from './runs/run.dto';
import { ExtractionStatusRequest, RecallRequest, SearchMemoryRequest, SetFromMessagesRequest, SetMemoryRequest } from './memory/memory.dto';
import { ListSavedMessagesRequest, SavedStatusRequest, SaveMessageRequest, SearchSavedMessagesRequest, UnsaveMessageRequest } from './conversations/saved.dto';
import { GetSettingsRequest, SetSettingRequest } from './settings/settings.dto';
import { ContextPackRequest } from './context/context.dto';
import { ObserveCrystallizeRequest, ObserveListRequest, ObserveRecordRequest } from './observe/observe.dto';
import { CodeAddRequest, CodeGithubSyncRequest, CodeListRequest, HistoryBisectRequest, HistoryDuplicateCheckRequest, HistoryLineRequest, HistoryPathRequest, HistoryReviewBriefRequest, HistorySymbolRequest } from './history/history.dto';
import type { CodeAddResponse, CodeGithubSyncResponse, CodeListResponse, HistoryBisectResponse, HistoryDuplicateCheckResponse, HistoryLineResponse, HistoryPathResponse, HistoryReviewBriefResponse, HistorySymbolResponse } from './history/history.dto';
import { QuarantineDropRequest, QuarantineListRequest, QuarantineRetryRequest } from './quarantine/quarantine.dto';
import { TrackerDuplicateCheckRequest, TrackerFlakyTestsRequest, TrackerIncidentsRequest, TrackerIssueLinksRequest, TrackerSourceRegisterRequest, TrackerStatusRequest } from './tracker/tracker.dto';
import type { TrackerDuplicateCheckResponse, TrackerFlakyTestsResponse, TrackerIncidentsResponse, TrackerIssueLinksResponse, TrackerSourceRegisterResponse, TrackerStatusResponse } from './tracker/tracker.dto';

/**
 * The type of an op's answer. A type only: nothing of it exists at run time. The compiler reads it
 * (OpResponse, the handlers' return types, the SDK) and so does the OpenAPI generator
 * (openapi/generate), which turns it into the answer's JSON Schema.
 */
export interface Answer<T extends object> {
  readonly __answer?: T;
}
export function answers<T extends object>(): Answer<T> {
  return {};
}

/**
 * The public ops: `POST /v1/ops/<name>`. Each names its request class (validated with
 * class-validator), its answer type, and the least role that may call it. `errors` lists the
 * error codes particular to the op (beyond the ones every op may answer: invalid_input,
 * unauthorized, forbidden, payload_too_large, internal, unavailable). `perUser` ops act for one user and also
 * take tokens bounded to one user (`own_user`); every other op refuses bounded tokens, because a
 * thread mixes users and has no user axis to bound. `deploymentWide` ops act on every namespace
 * at once and need a token that covers them all.
 */
export const Ops = {
  'conversation.set_logging': { role: 'admin', request: SetLoggingRequest, response: answers<SetLoggingResponse>() },
  'conversation.get_logging': { role: 'viewer', request: GetLoggingRequest, response: answers<SetLoggingResponse>() },
  'conversation.append': { role: 'writer', request: AppendTurnRequest, response: answers<AppendTurnResponse>(), errors: ['payload_too_large'] },
  'conversation.create': { role: 'writer', request: CreateThreadRequest, response: answers<CreateThreadResponse>(), errors: ['conflict'] },
  'conversation.update': { role: 'writer', request: UpdateThreadRequest, response: answers<GetThreadResponse>(), errors: ['not_found'] },
  'conversation.get': { role: 'viewer', request: GetThreadRequest, response: answers<GetThreadResponse>(), errors: ['not_found'] },
  'conversation.list': { role: 'viewer', request: ListTurnsRequest, response: answers<ListTurnsResponse>() },
  'conversation.threads': { role: 'viewer', request: ListThreadsRequest, response: answers<ListThreadsResponse>() },
  'conversation.search': { role: 'viewer', request: SearchTurnsRequest, response: answers<SearchTurnsResponse>() },
  'conversation.compact': { role: 'writer', request: CompactThreadRequest, response: answers<CompactThreadResponse>(), errors: ['not_found', 'conflict', 'not_configured'] },
  'conversation.delete': { role: 'admin', request: DeleteThreadRequest, response: answers<DeleteThreadResponse>(), errors: ['not_found'] },
  'conversation.save_message': { role: 'writer', request: SaveMessageRequest, response: answers<SaveMessageResponse>(), errors: ['payload_too_large'], perUser: true },
  'conversation.unsave_message': { role: 'writer', request: UnsaveMessageRequest, response: answers<UnsaveMessageResponse>(), perUser: true },
  'conversation.search_saved_messages': { role: 'viewer', request: SearchSavedMessagesRequest, response: answers<SearchSavedMessagesResponse>(), perUser: true },
  'conversation.list_saved_messages': { role: 'viewer', request: ListSavedMessagesRequest, response: answers<ListSavedMessagesResponse>(), perUser: true },
  'conversation.saved_status': { role: 'viewer', request: SavedStatusRequest, response: answers<SavedStatusResponse>(), perUser: true },
  'memory.set': { role: 'writer', request: SetMemoryRequest, response: answers<SetMemoryResponse>() },
  'memory.set_from_messages': { role: 'writer', request: SetFromMessagesRequest, response: answers<SetFromMessagesResponse>() },
  'memory.search': { role: 'viewer', request: SearchMemoryRequest, response: answers<SearchMemoryResponse>() },
  'memory.recall': { role: 'viewer', request: RecallRequest, response: answers<RecallResponse>() },
  'memory.extraction_status': { role: 'viewer', request: ExtractionStatusRequest, response: answers<ExtractionStatusResponse>(), errors: ['not_found'] },
  'context.pack': { role: 'viewer', request: ContextPackRequest, response: answers<ContextPackResponse>() },
  'observe.record': { role: 'writer', request: ObserveRecordRequest, response: answers<ObserveRecordResponse>() },
  'observe.list': { role: 'viewer', request: ObserveListRequest, response: answers<ObserveListResponse>() },
  'observe.crystallize': { role: 'writer', request: ObserveCrystallizeRequest, response: answers<ObserveCrystallizeResponse>() },
  'session.brief_save': { role: 'writer', request: BriefSaveRequest, response: answers<BriefSaveResponse>(), errors: ['conflict'], perUser: true },
  'session.brief_get': { role: 'viewer', request: BriefGetRequest, response: answers<BriefGetResponse>(), errors: ['not_found'], perUser: true },
  'session.brief_list': { role: 'viewer', request: BriefListRequest, response: answers<BriefListResponse>(), perUser: true },
  'session.brief_delete': { role: 'writer', request: BriefDeleteRequest, response: answers<BriefDeleteResponse>(), errors: ['not_found'], perUser: true },
  'erasure.request': { role: 'admin', request: ErasureRequest, response: answers<ErasureResponse>() },
  'erasure.status': { role: 'admin', request: ErasureStatusRequest, response: answers<ErasureResponse>(), errors: ['not_found'] },
  'erasure.export': { role: 'admin', request: ErasureExportRequest, response: answers<ErasureExportResponse>() },
  'run.begin': { role: 'writer', request: RunBeginRequest, response: answers<RunResponse>(), errors: ['conflict'] },
  'run.complete': { role: 'writer', request: RunCompleteRequest, response: answers<RunResponse>(), errors: ['not_found', 'conflict'] },
  'run.get': { role: 'viewer', request: RunGetRequest, response: answers<RunResponse>(), errors: ['not_found'] },
  'run.list': { role: 'viewer', request: RunListRequest, response: answers<RunListResponse>() },
  'run.report_usage': { role: 'writer', request: RunReportUsageRequest, response: answers<RunReportUsageResponse>(), errors: ['not_found'] },
  'token.create': { role: 'admin', request: CreateTokenRequest, response: answers<CreateTokenResponse>() },
  'token.revoke': { role: 'admin', request: RevokeTokenRequest, response: answers<RevokeTokenResponse>(), errors: ['not_found'] },
  'token.list': { role: 'admin', request: ListTokensRequest, response: answers<ListTokensResponse>() },
  // Any token may describe itself, bounded ones too: it names no user and reads nothing stored.
  'token.whoami': { role: 'viewer', request: WhoamiRequest, response: answers<WhoamiResponse>(), perUser: true },
  'settings.get': { role: 'viewer', request: GetSettingsRequest, response: answers<SettingsResponse>() },
  'settings.set': { role: 'admin', request: SetSettingRequest, response: answers<SettingsResponse>(), deploymentWide: true },
  // Quarantined rows belong to any tenant: only an every-namespace admin handles them.
  // The code-history plane (off until LOOM_CODE_INGEST_ENABLED=true).
  'code.add': { role: 'admin', request: CodeAddRequest, response: answers<CodeAddResponse>(), errors: ['not_configured'] },
  'code.github_sync': { role: 'admin', request: CodeGithubSyncRequest, response: answers<CodeGithubSyncResponse>(), errors: ['not_found', 'not_configured'] },
  'code.list': { role: 'viewer', request: CodeListRequest, response: answers<CodeListResponse>() },
  'history.path': { role: 'viewer', request: HistoryPathRequest, response: answers<HistoryPathResponse>(), errors: ['not_found', 'not_configured'] },
  'history.symbol': { role: 'viewer', request: HistorySymbolRequest, response: answers<HistorySymbolResponse>(), errors: ['not_found', 'not_configured'] },
  'history.line': { role: 'viewer', request: HistoryLineRequest, response: answers<HistoryLineResponse>(), errors: ['not_found', 'not_configured'] },
  'history.review_brief': { role: 'viewer', request: HistoryReviewBriefRequest, response: answers<HistoryReviewBriefResponse>(), errors: ['not_found', 'not_configured'], experimental: true },
  'history.duplicate_check': { role: 'viewer', request: HistoryDuplicateCheckRequest, response: answers<HistoryDuplicateCheckResponse>(), errors: ['not_found', 'not_configured'], experimental: true },
  'history.bisect': { role: 'viewer', request: HistoryBisectRequest, response: answers<HistoryBisectResponse>(), errors: ['not_found', 'not_configured'], experimental: true },
  // The tracker plane: read live from the team's own ClickHouse, one source per namespace.
  'tracker.status': { role: 'viewer', request: TrackerStatusRequest, response: answers<TrackerStatusResponse>() },
  'tracker.source_register': { role: 'admin', request: TrackerSourceRegisterRequest, response: answers<TrackerSourceRegisterResponse>(), errors: ['not_configured'] },
  'tracker.duplicate_check': { role: 'viewer', request: TrackerDuplicateCheckRequest, response: answers<TrackerDuplicateCheckResponse>(), errors: ['not_found', 'not_configured', 'unavailable'], experimental: true },
  'tracker.issue_links': { role: 'viewer', request: TrackerIssueLinksRequest, response: answers<TrackerIssueLinksResponse>(), errors: ['not_configured', 'unavailable'] },
  'tracker.flaky_tests': { role: 'viewer', request: TrackerFlakyTestsRequest, response: answers<TrackerFlakyTestsResponse>(), errors: ['not_configured', 'unavailable'] },
  'tracker.incidents': { role: 'viewer', request: TrackerIncidentsRequest, response: answers<TrackerIncidentsResponse>(), errors: ['not_configured', 'unavailable'] },
  'quarantine.list': { role: 'admin', request: QuarantineListRequest, response: answers<QuarantineListResponse>(), deploymentWide: true },
  'quarantine.retry': { role: 'admin', request: QuarantineRetryRequest, response: answers<QuarantineRetryResponse>(), deploymentWide: true },
  'quarantine.drop': { role: 'admin', request: QuarantineDropRequest, response: answers<QuarantineDropResponse>(), deploymentWide: true },
} as const satisfies Record<string, { role: Role; request: new () => object; response: Answer<object>; errors?: readonly ErrorCode[]; perUser?: boolean; deploymentWide?: boolean; experimental?: boolean }>;

export function isPerUserOp(op: OpName): boolean {
  return 'perUser' in Ops[op] && Ops[op].perUser === true;
}

/** Ops that change what every tenant gets (live settings): only a token for every namespace may call them. */
export function isDeploymentWideOp(op: OpName): boolean {
  return 'deploymentWide' in Ops[op] && Ops[op].deploymentWide === true;
}

/**
 * Ops whose answers are ranked guesses still being tuned (PRHIST-05): their shape holds, their
 * ranking may change between releases. The gateway's status (/readyz) lists them.
 */
export function isExperimentalOp(op: OpName): boolean {
  return 'experimental' in Ops[op] && Ops[op].experimental === true;
}

export type OpName = keyof typeof Ops;
/** What an op's handler receives once its body is validated. */
export type OpRequest<O extends OpName> = InstanceType<(typeof Ops)[O]['request']>;
/** What an op answers with a 200. */
export type OpResponse<O extends OpName> = (typeof Ops)[O]['response'] extends Answer<infer R> ? R : never;

/** The error codes an op may answer: the ones every op may, and its own. */
export const CommonErrorCodes = ['invalid_input', 'unauthorized', 'forbidden', 'payload_too_large', 'internal', 'unavailable'] as const satisfies readonly ErrorCode[];
export function opErrorCodes(op: OpName): ErrorCode[] {
  const entry: { role: Role; errors?: readonly ErrorCode[] } = Ops[op];
  const own = entry.errors ?? [];
  return [...new Set<ErrorCode>([...CommonErrorCodes, ...own])];
}
export const OpNames = Object.keys(Ops) as OpName[];

export function isOpName(value: string): value is OpName {
  return Object.prototype.hasOwnProperty.call(Ops, value);
}
