import type { Storage } from '@loom/clickhouse';
import {
  LoomError,
  type HistoryBisectRequest,
  type HistoryBisectResponse,
  type HistoryDuplicateCheckRequest,
  type HistoryDuplicateCheckResponse,
  type RankedChangeView,
} from '@loom/contracts';
import type { GithubStore } from '../github/github-store';
import { checkpoint, HistoryQueries } from '../queries/history-queries';
import { ChangeCorpora, type ChangeDoc } from '../similarity/change-corpus';
import { summarizeDiff } from '../similarity/diff-summary';
import { rankBisect, rankDuplicates, type Ranked } from '../similarity/rankers';
import { incidentLinks, INCIDENT_AFTER_MS, NO_TRACKER, weighIncidents, type IncidentRepository, type IncidentSource } from './incidents';

const DEFAULT_CANDIDATES = 10;
/** Commits bisect ranks when the caller gives no range: the newest ones. */
const DEFAULT_BISECT_WINDOW = 200;

/** The pre-PR duplicate check and bisect candidates, ranked in memory over a repository's changes. */
export class HistoryInsights {
  private readonly corpora: ChangeCorpora;

  constructor(
    storage: Storage,
    private readonly queries: HistoryQueries = new HistoryQueries(storage),
    private readonly github?: GithubStore,
    /** The tracker plane's incidents (PRHIST-02): bisect weighs them, every answer carries them. */
    private readonly incidents?: IncidentSource,
  ) {
    this.corpora = new ChangeCorpora(storage, github);
  }

  /** The corpus as of the indexed head (up to the checkpoint) and the GitHub source's last write. */
  private async corpus(namespace: string, repo: string, head: string, upto: number) {
    const source = await this.github?.source(namespace, repo);
    const corpus = await this.corpora.get(namespace, repo, `${head}\u0000${upto}\u0000${source?.updated_at ?? ''}`, upto);
    // The names an incident may call this repository by (its Loom name, its GitHub owner/repo).
    const names: IncidentRepository = { name: repo, github: source?.github || null };
    return { corpus, names };
  }

  async duplicateCheck(namespace: string, input: HistoryDuplicateCheckRequest): Promise<HistoryDuplicateCheckResponse> {
    const text = [input.title, input.description].filter((t): t is string => typeof t === 'string' && t.trim() !== '').join('\n');
    if (text === '' && !input.diff?.trim()) {
      throw new LoomError('invalid_input', 'give the proposed change: a title, a description or a diff', {
        fields: ['title', 'description', 'diff'].map((field) => ({ field, message: 'one of title, description and diff is required' })),
      });
    }
    const repository = await this.queries.repository(namespace, input.repository);
    const upto = checkpoint(repository);
    const { corpus } = await this.corpus(namespace, input.repository, repository.last_sha, upto);
    const before = input.before ? Number((await this.queries.commitByPrefix(namespace, input.repository, input.before, 'before', upto)).seq) : undefined;
    // Open PRs (and merged ones not on the indexed mainline) are "now": not older than any commit.
    const candidates = before === undefined ? [...corpus.docs, ...corpus.pulls] : corpus.docs.filter((d) => d.seq < before);
    const ranked = rankDuplicates(corpus, candidates, { text, diff: input.diff ? summarizeDiff(input.diff) : undefined });
    return { repository: input.repository, candidates: ranked.slice(0, input.limit ?? DEFAULT_CANDIDATES).map(view), incidents_reason: null };
  }

  async bisect(namespace: string, input: HistoryBisectRequest): Promise<HistoryBisectResponse> {
    const repository = await this.queries.repository(namespace, input.repository);
    const upto = checkpoint(repository);
    const { corpus, names } = await this.corpus(namespace, input.repository, repository.last_sha, upto);
    const bad = input.bad ? Number((await this.queries.commitByPrefix(namespace, input.repository, input.bad, 'bad', upto)).seq) : Number.MAX_SAFE_INTEGER;
    const good = input.good ? Number((await this.queries.commitByPrefix(namespace, input.repository, input.good, 'good', upto)).seq) : undefined;
    if (good !== undefined && good >= bad) {
      throw new LoomError('invalid_input', 'good must be older than bad on the mainline', { fields: [{ field: 'good', message: 'not older than bad' }] });
    }
    const since = input.since ? Date.parse(input.since) : undefined;
    const until = input.until ? Date.parse(input.until) : undefined;
    let range = corpus.docs.filter((d) => d.seq <= bad && (good === undefined || d.seq > good) && inWindow(d, since, until));
    if (good === undefined && since === undefined) range = range.slice(-DEFAULT_BISECT_WINDOW);
    if (range.length === 0) throw new LoomError('invalid_input', 'no indexed commit lies in that range; widen good/bad or since/until', { fields: [{ field: input.good || input.bad ? 'good' : 'since', message: 'empty range' }] });
    let ranked = rankBisect(corpus, range, input.description, { paths: (input.paths ?? []).map((p) => p.replace(/^\.?\//, '')), symbols: input.symbols ?? [] });
    const first = range[0] as ChangeDoc;
    const last = range[range.length - 1] as ChangeDoc;
    const from = corpus.docs.find((d) => d.seq === first.seq - 1)?.sha ?? null;
    // Incidents naming a commit of the range (or its PR) as their cause, or started within a day after one landed.
    const lookup = this.incidents
      ? await this.incidents(namespace, {
          repository: names,
          prs: range.map((d) => d.pr_number).filter((n) => n > 0),
          shas: range.map((d) => d.sha),
          started: { from: first.committed_at, to: new Date(Date.parse(last.committed_at) + INCIDENT_AFTER_MS).toISOString() },
        })
      : { incidents: [], reason: NO_TRACKER };
    ranked = weighIncidents(ranked, lookup.incidents, input.description, names);
    const candidates = ranked.slice(0, input.limit ?? DEFAULT_CANDIDATES).map(view);
    for (const c of candidates) c.incidents = incidentLinks(lookup.incidents, c, names);
    return { repository: input.repository, range: { from, to: last.sha, commits: range.length }, candidates, incidents_reason: lookup.reason };
  }
}

function inWindow(doc: ChangeDoc, since: number | undefined, until: number | undefined): boolean {
  const at = Date.parse(doc.committed_at);
  return (since === undefined || at >= since) && (until === undefined || at <= until);
}

function view(r: Ranked): RankedChangeView {
  return {
    sha: r.doc.sha,
    pr_number: r.doc.pr_number > 0 ? r.doc.pr_number : null,
    subject: r.doc.subject,
    author: r.doc.author,
    committed_at: r.doc.committed_at,
    pr_title: r.doc.pr_title,
    state: r.doc.state,
    score: Math.round(r.score * 10_000) / 10_000,
    reasons: r.reasons,
    files_in_common: r.files,
    symbols_in_common: r.symbols,
    runs: [],
    incidents: [],
  };
}
