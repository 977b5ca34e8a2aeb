import type { RankedIssue } from './ranker';

export interface ResolvedIssue extends RankedIssue {
  /**
   * The issue the new one matched when that issue is recorded as a duplicate of this one (a known
   * duplicate answers with its original, at the known duplicate's score); null when this issue
   * matched on its own.
   */
  via: string | null;
}

/** Most hops followed from a known duplicate to its original (A dup of B dup of C …). */
const MAX_HOPS = 10;

/**
 * The original a recorded duplicate finally points at, following chains; `allowed` says which
 * issues may be an answer (those of the check's pool: opened before the new issue, not the new
 * issue itself). A chain stops at its last allowed issue; a cycle, or an original that is not
 * allowed, leaves the issue as it is.
 */
export function originalOf(id: string, links: ReadonlyMap<string, string>, allowed: (id: string) => boolean): string {
  let at = id;
  const seen = new Set([id]);
  for (let hop = 0; hop < MAX_HOPS; hop += 1) {
    const next = links.get(at);
    if (next === undefined || seen.has(next) || !allowed(next)) break;
    seen.add(next);
    at = next;
  }
  return at;
}

/**
 * Answers each ranked candidate that the tracker records as a duplicate with its original: the
 * original takes the known duplicate's place and score (`via` names the duplicate) unless it is
 * already ranked higher on its own, and the known duplicate leaves the list (the original is the
 * answer, not a later report of it). Issues with no recorded link keep their place.
 */
export function resolveDuplicates(ranked: readonly RankedIssue[], links: ReadonlyMap<string, string>, allowed: (id: string) => boolean): ResolvedIssue[] {
  if (links.size === 0) return ranked.map((r) => ({ ...r, via: null }));
  const out: ResolvedIssue[] = [];
  const placed = new Set<string>();
  for (const r of ranked) {
    const original = originalOf(r.id, links, allowed);
    if (placed.has(original)) continue;
    placed.add(original);
    out.push(original === r.id ? { ...r, via: null } : { ...r, id: original, via: r.id });
  }
  return out;
}
