/** "Fixes #12", "closes: #12", "Resolves acme/repo#12": GitHub's closing keywords. */
const LINKED_ISSUE = /\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s+(?:[\w.-]+\/[\w.-]+)?#(\d+)/gi;

/** The issue numbers a text closes, in order of first mention. */
export function linkedIssues(text: string): number[] {
  return [...new Set([...text.matchAll(LINKED_ISSUE)].map((m) => Number(m[1])).filter((n) => Number.isInteger(n) && n > 0 && n < 2 ** 32))];
}
