import { readFileSync } from 'node:fs';
import { callOp } from '@loom/capture';
import type { IncidentRefs, TrackerDuplicateCheckResponse, TrackerFlakyTestsResponse, TrackerIncidentsResponse, TrackerIssueLinksResponse, TrackerSourceRegisterResponse, TrackerStatusResponse } from '@loom/contracts';
import { gatewayTarget } from '../gateway-target';

interface Common {
  namespace: string;
  url?: string;
  token?: string;
  json?: boolean;
}

const print = (options: Common, answer: unknown, human: () => string) => process.stdout.write(options.json ? `${JSON.stringify(answer)}\n` : human());

const int = (name: string, value: string | undefined, max: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`--${name} must be a whole number from 1 to ${max}`);
  return n;
};

/** `loom tracker status`: whether the tracker plane is on for the namespace, and why not. */
export async function trackerStatusCommand(options: Common): Promise<void> {
  const answer = await callOp<TrackerStatusResponse>(gatewayTarget(options), 'tracker.status', { namespace: options.namespace });
  print(options, answer, () =>
    answer.enabled
      ? `tracker on for ${options.namespace} (org ${answer.org}): ${answer.source!.connection.url} database ${answer.source!.connection.database}, issues table ${answer.source!.mapping['issues']?.['table'] ?? '?'}\n`
      : `tracker off for ${options.namespace}: ${answer.reason}\n`,
  );
}

/**
 * `loom tracker register --file source.json`: the file holds `connection` and `mapping` (and
 * optionally `issue_url_base`) as tracker.source_register takes them. LOOM_TRACKER_SOURCE_PASSWORD,
 * when set, is the connection's password, so it need not sit in the file.
 */
export async function trackerRegisterCommand(options: Common & { file: string }): Promise<void> {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(readFileSync(options.file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`--file must be a JSON file with connection and mapping: ${(error as Error).message}`);
  }
  const password = process.env['LOOM_TRACKER_SOURCE_PASSWORD'];
  if (password !== undefined && typeof body['connection'] === 'object' && body['connection'] !== null) body['connection'] = { ...(body['connection'] as object), password };
  const answer = await callOp<TrackerSourceRegisterResponse>(gatewayTarget(options), 'tracker.source_register', { ...body, namespace: options.namespace });
  print(options, answer, () => `registered ${answer.source.connection.url} database ${answer.source.connection.database} for ${options.namespace}: ${answer.issues} issues\n`);
}

/** `loom tracker duplicate-check --title ... [--body ... | --body-file f]` or `--issue <id>`: older issues ranked. */
export async function trackerDuplicateCheckCommand(options: Common & { title?: string; issue?: string; body?: string; bodyFile?: string; before?: string; limit?: string }): Promise<void> {
  if (options.title === undefined && options.issue === undefined) throw new Error('pass --title (and --body) for a new issue, or --issue <id> for one in the tracker');
  const body = options.bodyFile ? readFileSync(options.bodyFile, 'utf8') : options.body;
  const answer = await callOp<TrackerDuplicateCheckResponse>(gatewayTarget(options), 'tracker.duplicate_check', {
    namespace: options.namespace,
    ...(options.title !== undefined ? { title: options.title } : {}),
    ...(options.issue !== undefined ? { issue: options.issue } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(options.before ? { created_before: options.before } : {}),
    ...(options.limit ? { limit: int('limit', options.limit, 50) } : {}),
  });
  print(options, answer, () => {
    if (answer.candidates.length === 0) return `no older issues (${answer.considered} read)\n`;
    const lines = answer.candidates.map((c) => `${c.duplicate ? 'DUPLICATE' : '         '}  ${c.score.toFixed(3)}  #${c.id}  ${c.title.slice(0, 80)}${c.via ? `  (via #${c.via}, a recorded duplicate of it)` : ''}${c.shared.length ? `  [${c.shared.slice(0, 3).join(', ')}]` : ''}`);
    return `${lines.join('\n')}\n\n${answer.considered} older issue(s) ranked; threshold ${answer.threshold}\n`;
  });
}

/** `loom tracker links <issue>`: the pull requests and commits that close it. */
export async function trackerLinksCommand(issue: string, options: Common): Promise<void> {
  const answer = await callOp<TrackerIssueLinksResponse>(gatewayTarget(options), 'tracker.issue_links', { namespace: options.namespace, issue });
  print(options, answer, () =>
    answer.links.length === 0
      ? `no pull requests or commits link #${answer.issue}\n`
      : answer.links.map((l) => `${l.pr ? `PR #${l.pr}` : ''}${l.sha ? ` commit ${l.sha}` : ''}  (${l.source}${l.phrase ? `: "${l.phrase}"` : ''})`).join('\n') + '\n',
  );
}

/** `loom tracker flaky`: tests that failed and passed on one commit. */
export async function trackerFlakyCommand(options: Common & { since?: string; test?: string; limit?: string; offset?: string }): Promise<void> {
  const answer = await callOp<TrackerFlakyTestsResponse>(gatewayTarget(options), 'tracker.flaky_tests', {
    namespace: options.namespace,
    ...(options.since ? { since: options.since } : {}),
    ...(options.test ? { test: options.test } : {}),
    ...(options.limit ? { limit: int('limit', options.limit, 200) } : {}),
    ...(options.offset ? { offset: Number(options.offset) } : {}),
  });
  print(options, answer, () => {
    if (answer.tests.length === 0) return 'no flaky tests\n';
    const lines = answer.tests.map((t) => `${t.test}  flaky on ${t.flaky_commits} commit(s), ${t.failures} failed / ${t.passes} passed, last ${t.last_seen}`);
    return `${lines.join('\n')}\n${answer.next_offset !== null ? `more: --offset ${answer.next_offset}\n` : ''}`;
  });
}

/** `loom tracker incidents`: the source's incidents, newest first, with what caused and fixed each. */
export async function trackerIncidentsCommand(
  options: Common & { since?: string; until?: string; pr?: string; repository?: string; commit?: string; severity?: string; status?: string; limit?: string; offset?: string },
): Promise<void> {
  const answer = await callOp<TrackerIncidentsResponse>(gatewayTarget(options), 'tracker.incidents', {
    namespace: options.namespace,
    ...(options.since ? { since: options.since } : {}),
    ...(options.until ? { until: options.until } : {}),
    ...(options.pr ? { pr: int('pr', options.pr.replace(/^#/, ''), 2_147_483_647) } : {}),
    ...(options.repository ? { repository: options.repository } : {}),
    ...(options.commit ? { commit: options.commit } : {}),
    ...(options.severity ? { severity: options.severity } : {}),
    ...(options.status ? { status: options.status } : {}),
    ...(options.limit ? { limit: int('limit', options.limit, 200) } : {}),
    ...(options.offset ? { offset: Number(options.offset) } : {}),
  });
  const refs = (r: IncidentRefs) => [...r.pr_refs.map((p) => `PR ${p.repository ?? ''}#${p.number}`), ...r.commits.map((c) => c.slice(0, 10))].join(', ');
  print(options, answer, () => {
    if (answer.incidents.length === 0) return 'no incidents\n';
    const lines = answer.incidents.map((i) => {
      const caused = refs(i.caused_by);
      const fixed = refs(i.fixed_by);
      return `${i.id}  ${i.started_at ?? '?'}${i.resolved_at ? ` .. ${i.resolved_at}` : ''}  ${[i.severity, i.status].filter(Boolean).join(' ')}  ${i.title.slice(0, 80)}${i.repository ? `  [${i.repository}]` : ''}${caused ? `\n    caused by ${caused}` : ''}${fixed ? `\n    fixed by ${fixed}` : ''}`;
    });
    return `${lines.join('\n')}\n${answer.next_offset !== null ? `more: --offset ${answer.next_offset}\n` : ''}`;
  });
}
