import { MAX_KEPT_LINES, type ChangeKind, type Commit, type FileChange } from './commit';

/** Separators in the log format: record, field, end of header. Git never puts them in paths. */
export const RECORD = '\x1e';
export const FIELD = '\x1f';
export const HEADER_END = '\x1d';

/** The `--format` that `parseLog` reads: sha, parents, author, dates, subject, body. */
export const LOG_FORMAT = `${RECORD}%H${FIELD}%P${FIELD}%an${FIELD}%ae${FIELD}%at${FIELD}%ct${FIELD}%s${FIELD}%b${HEADER_END}`;

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/**
 * Reads `git log -p -U0 -M --format=LOG_FORMAT` line by line and yields one commit at a time.
 * Hunk bodies are counted, not trusted by their first character: with no context a removed line
 * "-- x" reads "--- x", which only the header's line counts tell from a file header.
 */
export async function* parseLog(lines: AsyncIterable<string>): AsyncGenerator<Commit> {
  let header: string[] | undefined;
  let commit: Commit | undefined;
  let file: FileChange | undefined;
  let oldLeft = 0;
  let newLeft = 0;

  const closeFile = (): void => {
    if (commit && file) commit.files.push(file);
    file = undefined;
  };

  for await (const line of lines) {
    if (line.startsWith(RECORD) && oldLeft === 0 && newLeft === 0) {
      closeFile();
      if (commit) yield commit;
      commit = undefined;
      header = [line.slice(1)];
      if (line.includes(HEADER_END)) commit = commitOf(header);
      continue;
    }
    if (header && !commit) {
      header.push(line);
      if (line.includes(HEADER_END)) commit = commitOf(header);
      continue;
    }
    if (!commit) continue;

    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file"
      if (line.startsWith('-') && oldLeft > 0) {
        oldLeft--;
        if (file) {
          file.deletions++;
          keep(file, line);
        }
      } else if (line.startsWith('+') && newLeft > 0) {
        newLeft--;
        if (file) {
          file.additions++;
          keep(file, line);
        }
      } else {
        // A body shorter than its header said: stop counting rather than swallow the next file.
        oldLeft = newLeft = 0;
      }
      if (oldLeft > 0 || newLeft > 0) continue;
      continue;
    }
    if (line.startsWith('diff --git ')) {
      closeFile();
      const [from, to] = diffGitPaths(line.slice('diff --git '.length));
      file = { path: to, oldPath: from, change: 'modified', additions: 0, deletions: 0, binary: false, hunks: [], lines: [] };
      continue;
    }
    if (!file) continue;
    if (line.startsWith('new file mode')) setChange(file, 'added');
    else if (line.startsWith('deleted file mode')) setChange(file, 'deleted');
    else if (line.startsWith('rename from ')) {
      file.oldPath = unquote(line.slice('rename from '.length));
      setChange(file, 'renamed');
    } else if (line.startsWith('rename to ')) {
      file.path = unquote(line.slice('rename to '.length));
      setChange(file, 'renamed');
    } else if (line.startsWith('--- ')) {
      const path = diffSide(line.slice(4), 'a/');
      if (path !== undefined) file.oldPath = path;
    } else if (line.startsWith('+++ ')) {
      const path = diffSide(line.slice(4), 'b/');
      if (path !== undefined) file.path = path;
      if (file.change === 'deleted' && path !== undefined) file.change = 'modified';
    } else if (line.startsWith('Binary files ')) file.binary = true;
    else {
      const hunk = HUNK.exec(line);
      if (hunk) {
        const h = {
          oldStart: Number(hunk[1]),
          oldLines: hunk[2] === undefined ? 1 : Number(hunk[2]),
          newStart: Number(hunk[3]),
          newLines: hunk[4] === undefined ? 1 : Number(hunk[4]),
          header: (hunk[5] ?? '').trim().slice(0, 200),
        };
        file.hunks.push(h);
        oldLeft = h.oldLines;
        newLeft = h.newLines;
      }
    }
  }
  closeFile();
  if (commit) yield commit;
}

function keep(file: FileChange, line: string): void {
  if (file.lines.length < MAX_KEPT_LINES) file.lines.push(line.slice(1, 201));
}

function setChange(file: FileChange, change: ChangeKind): void {
  file.change = change;
  if (change === 'deleted') file.path = file.oldPath;
}

function commitOf(header: string[]): Commit {
  const text = header.join('\n');
  const end = text.indexOf(HEADER_END);
  const [sha = '', parents = '', authorName = '', authorEmail = '', authoredAt = '0', committedAt = '0', subject = '', ...body] = text.slice(0, end).split(FIELD);
  return {
    sha,
    parents: parents.split(' ').filter(Boolean),
    authorName,
    authorEmail,
    authoredAt: Number(authoredAt),
    committedAt: Number(committedAt),
    subject,
    body: body.join(FIELD).trim(),
    files: [],
  };
}

/** `a/x b/x` (or quoted forms): split where both sides name the same path, else at " b/". */
function diffGitPaths(rest: string): [string, string] {
  if (rest.startsWith('"')) {
    const first = readQuoted(rest);
    const second = rest.slice(first.length + 1);
    return [strip(unquote(first), 'a/'), strip(unquote(second), 'b/')];
  }
  // Same path on both sides (every change but a rename): "a/" + P + " b/" + P.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.slice(2, half) === rest.slice(half + 3)) return [rest.slice(2, half), rest.slice(half + 3)];
  const at = rest.indexOf(' b/');
  return at < 0 ? [strip(rest, 'a/'), strip(rest, 'a/')] : [strip(rest.slice(0, at), 'a/'), strip(unquote(rest.slice(at + 1)), 'b/')];
}

function diffSide(value: string, prefix: string): string | undefined {
  if (value === '/dev/null') return undefined;
  return strip(unquote(value.replace(/\t$/, '')), prefix);
}

function strip(path: string, prefix: string): string {
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

function readQuoted(text: string): string {
  let i = 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return text.slice(0, i + 1);
}

/** Git's C-style quoting of unusual paths ("a/caf\303\251.txt"), decoded as UTF-8. */
export function unquote(value: string): string {
  if (!value.startsWith('"') || !value.endsWith('"')) return value;
  const bytes: number[] = [];
  const body = value.slice(1, -1);
  const escapes: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(escapes[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
