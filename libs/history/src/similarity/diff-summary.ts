import { headerSymbol } from '../symbols/header-symbol';

/** What a proposed change touches, read from a unified diff (`git diff` output). */
export interface DiffSummary {
  files: string[];
  symbols: string[];
  /** The added and removed lines' text, for terms. */
  text: string;
}

export function summarizeDiff(diff: string): DiffSummary {
  const files = new Set<string>();
  const symbols = new Set<string>();
  const text: string[] = [];
  for (const line of diff.split('\n')) {
    const file = /^\+\+\+ b\/(.+)$/.exec(line) ?? /^--- a\/(.+)$/.exec(line) ?? /^diff --git a\/(\S+) b\//.exec(line);
    if (file?.[1]) {
      files.add(file[1].trim());
      continue;
    }
    const hunk = /^@@ [^@]+ @@ ?(.*)$/.exec(line);
    if (hunk) {
      const name = headerSymbol(hunk[1] ?? '');
      if (name) symbols.add(name);
      continue;
    }
    if ((line.startsWith('+') || line.startsWith('-')) && !line.startsWith('+++') && !line.startsWith('---')) text.push(line.slice(1));
  }
  return { files: [...files], symbols: [...symbols], text: text.join('\n').slice(0, 200_000) };
}
