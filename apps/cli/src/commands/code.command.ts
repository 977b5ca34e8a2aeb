import { resolve } from 'node:path';
import { callOp } from '@loom/capture';
import type { CodeAddResponse, CodeGithubSyncResponse, CodeListResponse, GithubSourceView, HistoryLineResponse, HistoryPathResponse, HistorySymbolResponse, RepositoryView } from '@loom/contracts';
import { gatewayTarget } from '../gateway-target';

interface TargetOptions {
  namespace: string;
  url?: string;
  token?: string;
  json?: boolean;
}

/**
 * `loom code add <path>`: asks the gateway to index a clone's history, then shows its progress
 * until it is done. Rerun it to take new commits, or to resume an ingest that stopped.
 */
export async function codeAddCommand(path: string, options: TargetOptions & { name?: string; ref?: string; github?: string; githubApi?: string }): Promise<void> {
  const target = gatewayTarget(options);
  const body = { namespace: target.namespace, path: resolve(path), ...(options.name ? { name: options.name } : {}), ...(options.ref ? { ref: options.ref } : {}) };
  let repository = (await callOp<CodeAddResponse>(target, 'code.add', body)).repository;
  const tty = process.stderr.isTTY === true;
  let shown = '';
  for (;;) {
    const line = progressLine(repository);
    if (line !== shown) {
      process.stderr.write(tty ? `\r${line}` : `${line}\n`);
      shown = line;
    }
    if (repository.state !== 'ingesting') break;
    await new Promise((r) => setTimeout(r, 1000));
    const listed = await callOp<CodeListResponse>(target, 'code.list', { namespace: target.namespace });
    repository = listed.repositories.find((r) => r.name === repository.name) ?? repository;
  }
  if (tty) process.stderr.write('\n');
  if (options.json) process.stdout.write(`${JSON.stringify({ repository })}\n`);
  else if (repository.state === 'ready') process.stdout.write(`indexed ${repository.name}: ${repository.commits_indexed} commits up to ${repository.head?.slice(0, 12) ?? '-'}\nnext: loom history path ${repository.name} <file>\n`);
  if (repository.state === 'failed') throw new Error(`the ingest of ${repository.name} failed: ${repository.error ?? 'no reason given'}; run \`${repository.resume ?? 'loom code add'}\` to resume`);
  if (repository.state === 'interrupted') throw new Error(`the ingest of ${repository.name} was interrupted: ${repository.error ?? 'its gateway stopped'}`);
  if (options.github) await codeGithubCommand(repository.name, options.github, options);
}

/**
 * `loom code github <repository> <owner/name>`: the GitHub source of an added repository (merged
 * and open PRs, reviews, review comments, issues), then its progress until it is done. The token
 * comes from GITHUB_TOKEN (never an argument: it would sit in the shell's history and in `ps`);
 * without it the gateway's LOOM_GITHUB_TOKEN, if any, is used. Rerun it to take what is new.
 */
export async function codeGithubCommand(repository: string, github: string, options: TargetOptions & { githubApi?: string }): Promise<void> {
  const target = gatewayTarget(options);
  const token = process.env['GITHUB_TOKEN']?.trim();
  const body = { namespace: target.namespace, repository, github, ...(token ? { token } : {}), ...(options.githubApi ? { api_url: options.githubApi } : {}) };
  let source = (await callOp<CodeGithubSyncResponse>(target, 'code.github_sync', body)).source;
  let shown = '';
  for (;;) {
    const line = githubLine(repository, source);
    if (line !== shown) {
      process.stderr.write(`${line}\n`);
      shown = line;
    }
    // A rate-limit wait the gateway takes itself says "resumes by itself"; any other pause needs the caller.
    const waiting = source.state === 'syncing' || (source.state === 'paused' && source.reason?.includes('resumes by itself') === true);
    if (!waiting) break;
    await new Promise((r) => setTimeout(r, 1000));
    const listed = await callOp<CodeListResponse>(target, 'code.list', { namespace: target.namespace });
    source = listed.repositories.find((r) => r.name === repository)?.github ?? source;
  }
  if (options.json) process.stdout.write(`${JSON.stringify({ repository, source })}\n`);
  else if (source.state === 'ready') process.stdout.write(`synced ${repository} from GitHub ${source.github}: ${source.pull_requests} PRs, ${source.review_comments} reviews and review comments, ${source.issues} issues\nnext: loom history path ${repository} <file>\n`);
  if (source.state !== 'ready') throw new Error(`the GitHub sync of ${repository} is ${source.state}: ${source.reason ?? 'no reason given'}`);
}

function githubLine(repository: string, s: GithubSourceView): string {
  const counts = `${s.pull_requests} PRs, ${s.review_comments} reviews and comments, ${s.issues} issues`;
  return `${repository}: GitHub ${s.github} ${s.state} (${counts})${s.state === 'paused' && s.resume_at ? ` until ${s.resume_at}` : ''}${s.reason ? `: ${s.reason}` : ''}`;
}

export async function codeListCommand(options: TargetOptions): Promise<void> {
  const target = gatewayTarget(options);
  const answer = await callOp<CodeListResponse>(target, 'code.list', { namespace: target.namespace });
  if (options.json) return void process.stdout.write(`${JSON.stringify(answer)}\n`);
  if (!answer.enabled) return void process.stdout.write('code history is off: start the gateway with LOOM_CODE_INGEST_ENABLED=true\n');
  if (answer.repositories.length === 0) return void process.stdout.write('no repository yet: loom code add <path>\n');
  process.stdout.write(answer.repositories.map((r) => `${r.name}  ${progressLine(r)}  ${r.path}${r.github ? `\n  ${githubLine(r.name, r.github)}` : ''}`).join('\n') + '\n');
}

function progressLine(r: RepositoryView): string {
  const pct = r.commits_total === 0 ? 100 : Math.floor((100 * r.commits_indexed) / r.commits_total);
  return `${r.name}: ${r.state} ${r.commits_indexed}/${r.commits_total} commits (${pct}%)`;
}

/** `loom history path|symbol|line`: the history ops, one readable line per commit. */
export async function historyCommand(kind: 'path' | 'symbol' | 'line', repository: string, subject: string, options: TargetOptions & { limit?: string; ref?: string; path?: string }): Promise<void> {
  const target = gatewayTarget(options);
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 500)) throw new Error('--limit must be a whole number from 1 to 500');
  const base = { namespace: target.namespace, repository, ...(limit ? { limit } : {}) };
  let lines: string[];
  let answer: HistoryPathResponse | HistorySymbolResponse | HistoryLineResponse;
  if (kind === 'path') {
    const a = await callOp<HistoryPathResponse>(target, 'history.path', { ...base, path: subject });
    answer = a;
    lines = a.changes.map((c) => `${commitLine(c)}  ${c.change}${c.old_path ? ` from ${c.old_path}` : ''} +${c.additions} -${c.deletions}`);
  } else if (kind === 'symbol') {
    const a = await callOp<HistorySymbolResponse>(target, 'history.symbol', { ...base, symbol: subject, ...(options.path ? { path: options.path } : {}) });
    answer = a;
    lines = a.changes.map((c) => `${commitLine(c)}  ${c.symbol} in ${c.path} +${c.lines_added} -${c.lines_removed}`);
  } else {
    const at = /^(.*):(\d+)$/.exec(subject);
    if (!at) throw new Error('give the line as <path>:<line>, e.g. src/client.ts:120');
    const a = await callOp<HistoryLineResponse>(target, 'history.line', { ...base, path: at[1], line: Number(at[2]), ...(options.ref ? { ref: options.ref } : {}) });
    answer = a;
    lines = a.changes.map((c) => `${commitLine(c)}  ${c.path}:${c.line}${c.origin ? '  (first written here)' : ''}`);
  }
  if (options.json) return void process.stdout.write(`${JSON.stringify(answer)}\n`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function commitLine(c: { sha: string; pr_number: number | null; committed_at: string; author: string; subject: string }): string {
  const pr = c.pr_number === null ? '     ' : `#${c.pr_number}`.padEnd(5);
  return `${c.sha.slice(0, 10)} ${pr} ${c.committed_at.slice(0, 10)} ${c.author.slice(0, 20).padEnd(20)} ${c.subject.slice(0, 72)}`;
}
