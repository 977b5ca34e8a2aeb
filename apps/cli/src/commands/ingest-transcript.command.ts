import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { beginRun, briefWindow, crystallizeObservations, endRun, handTurnsToMemory, parseObservations, recordObservations, ingestTurns, parseTranscript, parseUsage, reportUsage, saveSessionBrief, TranscriptFormats, type ParsedTranscript, type TranscriptFormat } from '@loom/capture';
import { loadConfig, newId } from '@loom/platform';
import { readAdminToken } from '../admin-token';

export interface IngestTranscriptOptions {
  namespace: string;
  file: string;
  format: string;
  threadId?: string;
  dryRun?: boolean;
  afterMsgId?: string;
  agent?: string;
  userId?: string;
  url?: string;
  token?: string;
  json?: boolean;
  target?: string;
  runId?: string;
  goal?: string;
  usage?: boolean;
  sinceUsageId?: string;
  end?: boolean;
  sinceObsId?: string;
  crystallize?: boolean;
}

const TARGETS = ['transcript', 'memory', 'brief', 'run', 'observations'] as const;

/**
 * `loom ingest-transcript`: a transcript file (Markdown `# user`/`# assistant` sections, a JSON
 * array of {role, content}, a Claude Code session or a Codex rollout) appended turn by turn
 * through the running gateway.
 */
export async function ingestTranscriptCommand(options: IngestTranscriptOptions): Promise<void> {
  const target = options.target ?? 'transcript';
  if (!(TARGETS as readonly string[]).includes(target)) throw new Error(`--target must be one of ${TARGETS.join(', ')}`);
  if (options.format !== 'auto' && !(TranscriptFormats as readonly string[]).includes(options.format)) {
    throw new Error(`--format must be auto or one of ${TranscriptFormats.join(', ')}`);
  }
  let text: string;
  try {
    text = readFileSync(options.file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${options.file}: ${(error as Error).message}`);
  }
  const parsed = parseTranscript(basename(options.file), text, options.format as TranscriptFormat | 'auto');
  refuseEmpty(options, target, parsed, text);
  // A stable id makes a second ingest a no-op; a client's session id is one, else a new thread.
  const threadId = options.threadId ?? parsed.sessionId ?? newId('thr_');
  let turns = parsed.turns;
  if (options.afterMsgId) {
    const at = turns.findIndex((t) => t.msg_id === options.afterMsgId);
    if (at >= 0) turns = turns.slice(at + 1);
  }
  if (options.dryRun) {
    const summary = { dry_run: true, format: parsed.format, thread_id: threadId, turns: turns.length };
    process.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : `would append ${turns.length} turn(s) (${parsed.format}) to thread ${threadId}; nothing was sent\n`);
    return;
  }
  const config = loadConfig();
  const token = options.token ?? process.env['LOOM_TOKEN'] ?? config.bootstrapAdminToken ?? readAdminToken(config.dataDir);
  if (!token) throw new Error('no token: pass --token or set LOOM_TOKEN (a writer token of the namespace; `loom token create --role writer`)');
  const url = options.url ?? process.env['LOOM_URL'] ?? `http://127.0.0.1:${config.port}`;
  if (target === 'brief') {
    const sessionId = options.threadId ?? parsed.sessionId ?? newId('sess_');
    // project/branch from where the session ran: every session on that branch revises one brief.
    const project = parsed.cwd ? basename(parsed.cwd) : undefined;
    // The turns and tool actions since the last save (--after-msg-id names its last entry).
    const window = briefWindow(parsed, parseObservations(parsed.format, text), options.afterMsgId);
    if (window.turns.length === 0 && window.observations.length === 0 && !window.clientSummary) {
      const summary = { format: parsed.format, target, changed: false, reason: 'nothing-new', events: 0, last_msg_id: options.afterMsgId ?? null };
      process.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : 'nothing new since the last brief save; the brief is unchanged\n');
      return;
    }
    const saved = await saveSessionBrief(window, { url, token, namespace: options.namespace, agent: options.agent, sessionId, project, branch: parsed.branch });
    const held = saved.skipped_high ? `; ${saved.skipped_high} held back as high sensitivity` : '';
    process.stdout.write(
      options.json
        ? `${JSON.stringify({ format: parsed.format, target, ...saved, last_msg_id: window.cursor ?? options.afterMsgId ?? null })}\n`
        : `brief ${saved.brief_key}: ${saved.changed ? `revision ${saved.revision} (${saved.author})` : `unchanged (${saved.reason})`} from ${saved.events} event(s)${held}\n`,
    );
    return;
  }
  if (target === 'run') {
    await sessionRun(options, parsed, text, { url, token });
    return;
  }
  if (target === 'observations') {
    await sessionObservations(options, parsed, text, { url, token });
    return;
  }
  if (target === 'memory') {
    // The whole session, whatever the recording switch says: memory is a separate plane.
    const handed = await handTurnsToMemory(parsed.turns, { url, token, namespace: options.namespace, userId: options.userId, sessionId: options.threadId ?? parsed.sessionId });
    process.stdout.write(
      options.json
        ? `${JSON.stringify({ format: parsed.format, target, ...handed })}\n`
        : `handed ${handed.messages} message(s) to memory.set_from_messages (${handed.extractions.length} deferred extraction(s)); ${handed.skipped_high} high message(s) were dropped by Loom\n`,
    );
    return;
  }
  const report = await ingestTurns(
    turns,
    { url, token, namespace: options.namespace, threadId, agent: options.agent, userId: options.userId, runId: options.runId },
    options.json ? undefined : (done, total) => process.stderr.write(`  ${done}/${total} turns\n`),
  );
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ format: parsed.format, ...report })}\n`);
    return;
  }
  const notes = [
    `${report.duplicates} already there`,
    ...(report.not_recorded ? [`${report.not_recorded} not recorded: the namespace does not record conversations (conversation.set_logging)`] : []),
    ...(report.too_large ? [`${report.too_large} over 1 MiB, not sent`] : []),
  ];
  process.stdout.write(`appended ${report.appended} of ${report.turns} turn(s) (${parsed.format}) to thread ${threadId} in namespace "${options.namespace}"; ${notes.join('; ')}\n`);
}

/**
 * `--target run`: the session as a run. Begins it when new (its id from the session, its goal a
 * label: never the session's text, which the namespace may not record), reports the model usage
 * the transcript carries unless `--no-usage`, and with `--end` marks it `ended`.
 */
async function sessionRun(options: IngestTranscriptOptions, parsed: ReturnType<typeof parseTranscript>, text: string, auth: { url: string; token: string }): Promise<void> {
  const sessionId = options.threadId ?? parsed.sessionId;
  const runId = options.runId ?? (sessionId ? `${parsed.format}-${sessionId}` : undefined);
  if (!runId) throw new Error('this transcript names no session: pass --run-id');
  const place = parsed.cwd ? ` in ${basename(parsed.cwd)}${parsed.branch ? ` (${parsed.branch})` : ''}` : '';
  const goal = options.goal ?? `${parsed.format === 'codex' ? 'Codex' : parsed.format === 'claude-code' ? 'Claude Code' : parsed.format === 'cursor' ? 'Cursor' : 'Agent'} session${place}`;
  const target = { ...auth, namespace: options.namespace, agent: options.agent, runId, goal };
  const { items: reports, lastId: lastUsageId } = resendFrom(options.usage === false ? [] : parseUsage(parsed.format, text), (r) => r.usage_id, options.sinceUsageId);
  const outcome = reports.length > 0 ? await reportUsage(reports, target) : await beginQuietly(target);
  const ended = options.end ? (await endRun(target)).ended : false;
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ format: parsed.format, target: 'run', ...outcome, ended, last_usage_id: lastUsageId })}\n`);
    return;
  }
  const cost = outcome.model_cost?.cost_usd;
  process.stdout.write(
    `run ${runId}${outcome.began ? ' (begun)' : ''}: ${outcome.reports} usage report(s) sent` +
      `${cost !== undefined && cost !== null ? `; model cost so far $${cost.toFixed(4)}` : ''}${ended ? '; marked ended' : ''}\n`,
  );
}

/** The run without usage: begun if new, left alone if it exists. */
async function beginQuietly(target: { url: string; token: string; namespace: string; agent?: string | undefined; runId: string; goal: string }) {
  const began = await beginRun(target);
  return { run_id: target.runId, reports: 0, began, model_cost: null };
}

/**
 * `--target observations`: the session's tool actions through observe.record (from
 * `--since-obs-id` on: that one is sent again, its outcome may have arrived since), and with
 * `--crystallize` the session's new observations handed to memory extraction.
 */
async function sessionObservations(options: IngestTranscriptOptions, parsed: ReturnType<typeof parseTranscript>, text: string, auth: { url: string; token: string }): Promise<void> {
  const sessionId = options.threadId ?? parsed.sessionId;
  if (!sessionId) throw new Error('this transcript names no session: pass --thread-id');
  const { items: observations, lastId: lastObsId } = resendFrom(parseObservations(parsed.format, text), (o) => o.obs_id, options.sinceObsId);
  const target = { ...auth, namespace: options.namespace, agent: options.agent, userId: options.userId, sessionId };
  const recorded = observations.length > 0 ? await recordObservations(observations, target) : { recorded: 0, skipped_high: 0 };
  const crystallized = options.crystallize ? await crystallizeObservations(target) : undefined;
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ format: parsed.format, target: 'observations', session_id: sessionId, sent: observations.length, ...recorded, ...(crystallized ? { crystallized } : {}), last_obs_id: lastObsId })}\n`);
    return;
  }
  process.stdout.write(
    `recorded ${recorded.recorded} tool action(s) of session ${sessionId}${recorded.skipped_high ? `; ${recorded.skipped_high} read as high and were not kept` : ''}` +
      `${crystallized ? `; ${crystallized.observations} handed to memory extraction` : ''}\n`,
  );
}

/**
 * What a capture hook sends again: the items from `since` on (that one included: a response or
 * an action read half-written last time is then sent whole, and replaces itself), and the id to
 * resume from next time. An unknown `since` sends everything, which the ids make harmless.
 */
function resendFrom<T>(items: T[], idOf: (item: T) => string, since: string | undefined): { items: T[]; lastId: string | null } {
  const at = since === undefined ? -1 : items.findIndex((item) => idOf(item) === since);
  const sent = at >= 0 ? items.slice(at) : items;
  return { items: sent, lastId: sent.length > 0 ? idOf(sent[sent.length - 1]!) : (since ?? null) };
}

/** What a file read as each format must hold, said when it holds none of it. */
const EXPECTED: Record<TranscriptFormat, string> = {
  markdown: 'no "# user" / "# assistant" sections (nor SpecStory\'s _**User**_ / _**Assistant**_)',
  json: 'no {role, content} elements',
  'claude-code': 'no user or assistant entries with text, no tool calls and no usage (a Claude Code session is JSON lines with "type": "user" / "assistant")',
  codex: 'no response_item messages, no tool calls and no token counts (a Codex rollout is JSON lines starting with "type": "session_meta")',
  cursor: 'no user or assistant lines with text (a Cursor agent transcript is JSON lines with "role" and "message")',
};

/**
 * A file that yields nothing is not a transcript of that format (a wrong --format, a malformed
 * file, /etc/passwd): a non-zero exit naming the format tried, never "appended 0 of 0". The
 * transcript and memory targets need turns; the others also take tool actions or usage.
 */
function refuseEmpty(options: IngestTranscriptOptions, target: string, parsed: ParsedTranscript, text: string): void {
  const needsTurns = target === 'transcript' || target === 'memory';
  const usable = parsed.turns.length + (needsTurns ? 0 : parseObservations(parsed.format, text).length + parseUsage(parsed.format, text).length + (parsed.clientSummary ? 1 : 0));
  if (usable > 0) return;
  const how = options.format === 'auto' ? 'detected from its name and first line' : 'as --format said';
  throw new Error(
    `${options.file} is not a ${parsed.format} transcript (${how}): it has ${EXPECTED[parsed.format]}, so no turn was read and nothing was sent; ` +
      `give the right --format (${TranscriptFormats.join(', ')})`,
  );
}
