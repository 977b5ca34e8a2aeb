import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { handTurnsToMemory, ingestTurns, parseTranscript, saveSessionBrief, TranscriptFormats, type TranscriptFormat } from '@loom/capture';
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
}

/**
 * `loom ingest-transcript`: a transcript file (Markdown `# user`/`# assistant` sections, a JSON
 * array of {role, content}, a Claude Code session or a Codex rollout) appended turn by turn
 * through the running gateway.
 */
export async function ingestTranscriptCommand(options: IngestTranscriptOptions): Promise<void> {
  const target = options.target ?? 'transcript';
  if (target !== 'transcript' && target !== 'memory' && target !== 'brief') throw new Error('--target must be transcript, memory or brief');
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
  // A stable id makes a second ingest a no-op; a client's session id is one, else a new thread.
  const threadId = options.threadId ?? parsed.sessionId ?? newId('thr_');
  let turns = parsed.turns;
  // The client's compaction summary is new when it came after the turns a capture already sent.
  let clientSummary = parsed.clientSummary;
  if (options.afterMsgId) {
    const at = turns.findIndex((t) => t.msg_id === options.afterMsgId);
    if (at >= 0) {
      turns = turns.slice(at + 1);
      if ((parsed.clientSummaryAt ?? 0) <= at) clientSummary = undefined;
    }
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
    if (turns.length === 0 && !clientSummary) {
      const summary = { format: parsed.format, target, changed: false, reason: 'nothing-new', events: 0, last_msg_id: options.afterMsgId ?? null };
      process.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : 'no new turns since the last brief save; the brief is unchanged\n');
      return;
    }
    const saved = await saveSessionBrief({ turns, clientSummary }, { url, token, namespace: options.namespace, agent: options.agent, sessionId, project, branch: parsed.branch });
    process.stdout.write(
      options.json
        ? `${JSON.stringify({ format: parsed.format, target, ...saved, last_msg_id: [...turns].reverse().find((t) => t.msg_id)?.msg_id ?? options.afterMsgId ?? null })}\n`
        : `brief ${saved.brief_key}: ${saved.changed ? `revision ${saved.revision} (${saved.author})` : `unchanged (${saved.reason})`} from ${saved.events} event(s)\n`,
    );
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
    { url, token, namespace: options.namespace, threadId, agent: options.agent, userId: options.userId },
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
