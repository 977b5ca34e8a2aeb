import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { handTurnsToMemory, ingestTurns, parseTranscript, TranscriptFormats, type TranscriptFormat } from '@loom/capture';
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
  if (target !== 'transcript' && target !== 'memory') throw new Error('--target must be transcript or memory');
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
