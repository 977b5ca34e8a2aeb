import { createWriteStream, type WriteStream } from 'node:fs';
import { erasureStatus, exportTurns, requestErasure } from '@loom/capture';
import type { ErasureResponse } from '@loom/contracts';
import { gatewayTarget } from '../gateway-target';

interface TargetOptions {
  namespace: string;
  url?: string;
  token?: string;
  json?: boolean;
}

/** `loom erasure request`: a person's data, or whole namespaces, erased; waits for it unless --no-wait. */
export async function erasureRequestCommand(options: TargetOptions & { userId?: string; namespaces?: string; purge?: boolean; wait?: boolean }): Promise<void> {
  if ((options.userId === undefined) === (options.namespaces === undefined)) throw new Error('give exactly one of --user-id (a person) or --namespaces (whole namespaces, comma-separated)');
  if (options.purge && options.userId !== undefined) throw new Error('--purge goes with --namespaces; a person\'s erasure tombstones');
  const namespaces = options.namespaces?.split(',').map((n) => n.trim()).filter(Boolean);
  const answer = await requestErasure(gatewayTarget(options), { userId: options.userId, namespaces, purge: options.purge === true, wait: options.wait !== false });
  print(answer, options.json);
}

/** `loom erasure status ID`: where an erasure stands. */
export async function erasureStatusCommand(erasureId: string, options: TargetOptions): Promise<void> {
  print(await erasureStatus(gatewayTarget(options), erasureId), options.json);
}

/**
 * `loom erasure export`: every turn of a person (or of the namespace), tombstoned ones included
 * unless --live-only, as JSON lines to --out or stdout. Progress goes to stderr, page by page.
 */
export async function erasureExportCommand(options: TargetOptions & { userId?: string; liveOnly?: boolean; out?: string }): Promise<void> {
  const out: WriteStream | NodeJS.WriteStream = options.out ? createWriteStream(options.out, { mode: 0o600 }) : process.stdout;
  const started = Date.now();
  let lastReport = 0;
  let written = 0;
  const totals = await exportTurns(gatewayTarget(options), { userId: options.userId, includeTombstoned: options.liveOnly !== true }, async (turns) => {
    const chunk = turns.map((t) => JSON.stringify(t)).join('\n');
    if (chunk) await write(out, `${chunk}\n`);
    written += turns.length;
    if (Date.now() - lastReport > 1_000) {
      lastReport = Date.now();
      process.stderr.write(`exported ${written.toLocaleString('en-US')} turn(s) so far…\n`);
    }
  });
  if (options.out) await new Promise<void>((resolve, reject) => (out as WriteStream).end((error?: Error | null) => (error ? reject(error) : resolve())));
  const whose = options.userId !== undefined ? `user ${options.userId} in every namespace the token covers` : `namespace ${options.namespace}`;
  process.stderr.write(
    `exported ${totals.turns.toLocaleString('en-US')} turn(s) of ${whose} (${totals.tombstoned} tombstoned) in ${((Date.now() - started) / 1000).toFixed(1)} s${options.out ? ` to ${options.out}` : ''}\n`,
  );
}

function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (out.write(text, (error) => (error ? reject(error) : undefined))) resolve();
    else out.once('drain', resolve);
  });
}

function print(answer: ErasureResponse, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return;
  }
  const scope = answer.subject === 'user' ? 'a person\'s data' : `namespaces ${Array.isArray(answer.namespaces) ? answer.namespaces.join(', ') : answer.namespaces}`;
  const lines = [`erasure ${answer.erasure_id} (${scope}): ${answer.status}${answer.attempts > 1 ? ` after ${answer.attempts} attempts` : ''}`];
  if (answer.erased) {
    const counts = Object.entries(answer.erased).filter(([, n]) => n > 0).map(([kind, n]) => `${n} ${kind}`);
    lines.push(`${answer.purged ? 'removed from disk' : 'tombstoned'}: ${counts.length ? counts.join(', ') : 'nothing (no rows left to erase)'}`);
  }
  if (answer.status === 'pending') lines.push(`it finishes in the background; check with: loom erasure status ${answer.erasure_id} --namespace <ns>`);
  if (answer.last_error) lines.push(`last error: ${answer.last_error}`);
  if (answer.status === 'failed') lines.push('it will not be retried: fix the cause and send the request again');
  process.stdout.write(`${lines.join('\n')}\n`);
}
