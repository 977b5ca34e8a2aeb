/**
 * Code-like evidence in an issue: the things that make two reports the same bug even when their
 * prose differs. Error code names (LOGICAL_ERROR), numeric codes (Code: 49), exception class
 * names, qualified symbols from stack traces (DB::MergeTreeData::loadDataParts), CI failure ids
 * (STID: 2508-48e6), test names (02540_duplicate_primary_key) and quoted assertion text.
 */

const PATTERNS: ReadonlyArray<{ kind: string; re: RegExp; group?: number }> = [
  { kind: 'stid', re: /\bSTID:\s*([0-9a-f]{2,8}-[0-9a-f]{2,8})\b/gi, group: 1 },
  { kind: 'code', re: /\bCode:\s*(\d{1,4})\b/g, group: 1 },
  { kind: 'name', re: /\b[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+\b/g },
  { kind: 'exception', re: /\b[A-Z][A-Za-z0-9]*(?:Exception|Error|Panic|Fault)\b/g },
  { kind: 'symbol', re: /\b(?:[A-Za-z_]\w*::)+~?[A-Za-z_]\w*/g },
  { kind: 'test', re: /\b\d{5}_[a-z0-9_]{3,}\b/g },
  { kind: 'quoted', re: /[`'"]([^`'"\n]{8,160})[`'"]/g, group: 1 },
];

/** Symbols and names every report of a C++ project carries: they tell nothing apart. */
const GENERIC = new Set(['db::exception', 'std::exception', 'std::string', 'db::exception::exception', 'std::__1', 'poco::exception']);

/** The distinct evidence items of `text`, each as `kind:value` (lower-cased, spaces collapsed). */
export function evidenceOf(text: string): Set<string> {
  const out = new Set<string>();
  const plain = text.replace(/https?:\/\/\S+/g, ' ');
  for (const { kind, re, group } of PATTERNS) {
    for (const match of plain.matchAll(re)) {
      const raw = (group === undefined ? match[0] : match[group]) ?? '';
      const value = raw.toLowerCase().replace(/\s+/g, ' ').trim();
      if (value.length < 2 || GENERIC.has(value)) continue;
      out.add(`${kind}:${value}`);
    }
  }
  return out;
}

/**
 * Test-name globs an issue names (`03008_deduplication_*`): an umbrella report of a family of
 * tests. A new issue about any test of the family shares the evidence. Answers the prefixes.
 */
export function testGlobsOf(text: string): string[] {
  return [...text.replace(/https?:\/\/\S+/g, ' ').matchAll(/\b(\d{5}_[a-z0-9_]*)\*/g)].map((m) => m[1]!.toLowerCase());
}

/** Whether an evidence item of a new issue is covered by an older issue's test globs. */
export function coveredByGlob(item: string, globs: readonly string[]): boolean {
  if (!item.startsWith('test:') || globs.length === 0) return false;
  const name = item.slice('test:'.length);
  return globs.some((prefix) => name.startsWith(prefix));
}

/** `kind:value` as a person reads it. */
export function describeEvidence(item: string): string {
  const at = item.indexOf(':');
  const kind = item.slice(0, at);
  const value = item.slice(at + 1);
  if (kind === 'code') return `Code: ${value}`;
  if (kind === 'stid') return `STID: ${value}`;
  return value;
}
