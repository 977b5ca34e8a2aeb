/**
 * "Fixes #12", "Closes #3, #4", "resolves acme/app#7", "Fixed: https://github.com/acme/app/issues/9":
 * the closing keywords GitHub and GitLab read in pull request bodies and commit messages.
 */
const KEYWORD = String.raw`\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+`;
const REF = String.raw`(?:(?:[\w.-]+\/[\w.-]+)?#\d+|https?:\/\/\S+?\/issues\/\d+)`;
const CLAUSE = new RegExp(`${KEYWORD}(${REF}(?:\\s*(?:,|and|&)\\s*${REF})*)`, 'gi');
const ONE = /(?:([\w.-]+)\/([\w.-]+))?#(\d+)|https?:\/\/[^/\s]+\/([\w.-]+)\/([\w.-]+)\/issues\/(\d+)/gi;

export interface FixReference {
  issue: string;
  /** The owner a qualified reference names (`acme` of `acme/app#7`), or null for a bare `#7`. */
  owner: string | null;
  phrase: string;
}

/** Every issue `text` says it closes. */
export function fixReferences(text: string): FixReference[] {
  const out: FixReference[] = [];
  for (const clause of text.matchAll(CLAUSE)) {
    const phrase = clause[0].trim();
    for (const ref of (clause[1] ?? '').matchAll(ONE)) {
      const issue = ref[3] ?? ref[6];
      if (issue === undefined) continue;
      out.push({ issue, owner: ref[1] ?? ref[4] ?? null, phrase });
    }
  }
  return out;
}

/**
 * Whether `text` closes `issue`. A qualified reference counts only when it names the tracker's
 * organisation: `other-org/lib#12` is another tracker's issue 12.
 */
export function closes(text: string, issue: string, org: string | undefined): FixReference | undefined {
  const bare = issue.replace(/^#/, '');
  return fixReferences(text).find((r) => r.issue === bare && (r.owner === null || org === undefined || r.owner.toLowerCase() === org.toLowerCase()));
}
