import type { Role } from './roles';
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
import { CreateTokenRequest, ListTokensRequest, RevokeTokenRequest } from './auth/token.dto';
import { BriefDeleteRequest, BriefGetRequest, BriefListRequest, BriefSaveRequest } from './briefs/brief.dto';
import { ErasureExportRequest, ErasureRequest, ErasureStatusRequest } from './erasure/erasure.dto';
import { RunBeginRequest, RunCompleteRequest, RunGetRequest, RunListRequest, RunReportUsageRequest } from './runs/run.dto';
import { ExtractionStatusRequest, RecallRequest, SearchMemoryRequest, SetFromMessagesRequest, SetMemoryRequest } from './memory/memory.dto';
import { ListSavedMessagesRequest, SavedStatusRequest, SaveMessageRequest, SearchSavedMessagesRequest, UnsaveMessageRequest } from './conversations/saved.dto';
import { GetSettingsRequest, SetSettingRequest } from './settings/settings.dto';
import { ContextPackRequest } from './context/context.dto';
import { ObserveCrystallizeRequest, ObserveListRequest, ObserveRecordRequest } from './observe/observe.dto';
import { QuarantineDropRequest, QuarantineListRequest, QuarantineRetryRequest } from './quarantine/quarantine.dto';
import { TrackerDuplicateCheckRequest, TrackerFlakyTestsRequest, TrackerIssueLinksRequest, TrackerSourceRegisterRequest, TrackerStatusRequest } from './tracker/tracker.dto';

/**
 * The public ops: `POST /v1/ops/<name>`. Each names its request class (validated with
 * class-validator) and the least role that may call it. `perUser` ops act for one user and also
 * take tokens bounded to one user (`own_user`); every other op refuses bounded tokens, because a
 * thread mixes users and has no user axis to bound. `deploymentWide` ops act on every namespace
 * at once and need a token that covers them all.
 */
export const Ops = {
  'conversation.set_logging': { role: 'admin', request: SetLoggingRequest },
  'conversation.get_logging': { role: 'viewer', request: GetLoggingRequest },
  'conversation.append': { role: 'writer', request: AppendTurnRequest },
  'conversation.create': { role: 'writer', request: CreateThreadRequest },
  'conversation.update': { role: 'writer', request: UpdateThreadRequest },
  'conversation.get': { role: 'viewer', request: GetThreadRequest },
  'conversation.list': { role: 'viewer', request: ListTurnsRequest },
  'conversation.threads': { role: 'viewer', request: ListThreadsRequest },
  'conversation.search': { role: 'viewer', request: SearchTurnsRequest },
  'conversation.compact': { role: 'writer', request: CompactThreadRequest },
  'conversation.delete': { role: 'admin', request: DeleteThreadRequest },
  'conversation.save_message': { role: 'writer', request: SaveMessageRequest, perUser: true },
  'conversation.unsave_message': { role: 'writer', request: UnsaveMessageRequest, perUser: true },
  'conversation.search_saved_messages': { role: 'viewer', request: SearchSavedMessagesRequest, perUser: true },
  'conversation.list_saved_messages': { role: 'viewer', request: ListSavedMessagesRequest, perUser: true },
  'conversation.saved_status': { role: 'viewer', request: SavedStatusRequest, perUser: true },
  'memory.set': { role: 'writer', request: SetMemoryRequest },
  'memory.set_from_messages': { role: 'writer', request: SetFromMessagesRequest },
  'memory.search': { role: 'viewer', request: SearchMemoryRequest },
  'memory.recall': { role: 'viewer', request: RecallRequest },
  'memory.extraction_status': { role: 'viewer', request: ExtractionStatusRequest },
  'context.pack': { role: 'viewer', request: ContextPackRequest },
  'observe.record': { role: 'writer', request: ObserveRecordRequest },
  'observe.list': { role: 'viewer', request: ObserveListRequest },
  'observe.crystallize': { role: 'writer', request: ObserveCrystallizeRequest },
  'session.brief_save': { role: 'writer', request: BriefSaveRequest, perUser: true },
  'session.brief_get': { role: 'viewer', request: BriefGetRequest, perUser: true },
  'session.brief_list': { role: 'viewer', request: BriefListRequest, perUser: true },
  'session.brief_delete': { role: 'writer', request: BriefDeleteRequest, perUser: true },
  'erasure.request': { role: 'admin', request: ErasureRequest },
  'erasure.status': { role: 'admin', request: ErasureStatusRequest },
  'erasure.export': { role: 'admin', request: ErasureExportRequest },
  'run.begin': { role: 'writer', request: RunBeginRequest },
  'run.complete': { role: 'writer', request: RunCompleteRequest },
  'run.get': { role: 'viewer', request: RunGetRequest },
  'run.list': { role: 'viewer', request: RunListRequest },
  'run.report_usage': { role: 'writer', request: RunReportUsageRequest },
  'token.create': { role: 'admin', request: CreateTokenRequest },
  'token.revoke': { role: 'admin', request: RevokeTokenRequest },
  'token.list': { role: 'admin', request: ListTokensRequest },
  'settings.get': { role: 'viewer', request: GetSettingsRequest },
  'settings.set': { role: 'admin', request: SetSettingRequest, deploymentWide: true },
  // Quarantined rows belong to any tenant: only an every-namespace admin handles them.
  'quarantine.list': { role: 'admin', request: QuarantineListRequest, deploymentWide: true },
  'quarantine.retry': { role: 'admin', request: QuarantineRetryRequest, deploymentWide: true },
  'quarantine.drop': { role: 'admin', request: QuarantineDropRequest, deploymentWide: true },
  // The tracker plane: read live from the team's own ClickHouse, one source per namespace.
  'tracker.status': { role: 'viewer', request: TrackerStatusRequest },
  'tracker.source_register': { role: 'admin', request: TrackerSourceRegisterRequest },
  'tracker.duplicate_check': { role: 'viewer', request: TrackerDuplicateCheckRequest },
  'tracker.issue_links': { role: 'viewer', request: TrackerIssueLinksRequest },
  'tracker.flaky_tests': { role: 'viewer', request: TrackerFlakyTestsRequest },
} as const satisfies Record<string, { role: Role; request: new () => object; perUser?: boolean; deploymentWide?: boolean }>;

export function isPerUserOp(op: OpName): boolean {
  return 'perUser' in Ops[op] && Ops[op].perUser === true;
}

/** Ops that change what every tenant gets (live settings): only a token for every namespace may call them. */
export function isDeploymentWideOp(op: OpName): boolean {
  return 'deploymentWide' in Ops[op] && Ops[op].deploymentWide === true;
}

export type OpName = keyof typeof Ops;
export const OpNames = Object.keys(Ops) as OpName[];

export function isOpName(value: string): value is OpName {
  return Object.prototype.hasOwnProperty.call(Ops, value);
}
