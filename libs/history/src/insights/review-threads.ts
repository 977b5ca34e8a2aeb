import type { ReviewCommentView } from '@loom/contracts';
import type { ReviewCommentRow } from '../github/github-rows';

/**
 * A pull request's reviews and line comments as a review brief shows them, each with how it
 * ended. A line comment is resolved when a later commit of the PR changed the lines it was about
 * (GitHub then gives it no `line`: it is outdated); a reply shares its thread's ending. A request
 * for changes is resolved by a later approval or by its dismissal. Reviews that only wrap line
 * comments (COMMENTED, no text) are left out: their comments speak for them.
 */
export function reviewThreads(rows: readonly ReviewCommentRow[]): ReviewCommentView[] {
  const comments = new Map(rows.filter((r) => r.kind === 'comment').map((r) => [r.id, r]));
  const approvals = rows.filter((r) => r.kind === 'review' && r.state === 'APPROVED');
  const rootOf = (row: ReviewCommentRow): ReviewCommentRow => {
    let root = row;
    for (let hops = 0; root.in_reply_to !== 0 && hops < 100; hops++) root = comments.get(root.in_reply_to) ?? root;
    return root;
  };
  const out: ReviewCommentView[] = [];
  for (const row of rows) {
    if (row.kind === 'review' && row.state === 'COMMENTED' && row.body.trim() === '') continue;
    const ending = row.kind === 'review' ? reviewEnding(row, approvals) : commentEnding(rootOf(row), row);
    out.push({
      kind: row.kind,
      id: row.id,
      author: row.author,
      path: row.path === '' ? null : row.path,
      line: row.line > 0 ? row.line : null,
      body: row.body,
      state: row.kind === 'review' ? row.state : null,
      in_reply_to: row.in_reply_to > 0 ? row.in_reply_to : null,
      created_at: new Date(`${String(row.created_at).replace(' ', 'T')}Z`).toISOString(),
      resolved: ending.resolved,
      resolution: ending.resolution,
    });
  }
  return out;
}

function commentEnding(root: ReviewCommentRow, row: ReviewCommentRow): { resolved: boolean | null; resolution: string } {
  const reply = row !== root ? `a reply in the thread of comment ${root.id}: ` : '';
  if (root.line === 0 && root.original_line > 0) return { resolved: true, resolution: `${reply}a later commit of the pull request changed the commented lines` };
  if (root.line > 0) return { resolved: false, resolution: `${reply}the commented lines were merged unchanged` };
  return { resolved: null, resolution: `${reply}GitHub gives no line to tell` };
}

function reviewEnding(row: ReviewCommentRow, approvals: readonly ReviewCommentRow[]): { resolved: boolean | null; resolution: string } {
  switch (row.state) {
    case 'APPROVED':
      return { resolved: null, resolution: 'approved' };
    case 'DISMISSED':
      return { resolved: true, resolution: 'dismissed' };
    case 'CHANGES_REQUESTED': {
      const later = approvals.find((a) => a.created_at > row.created_at);
      return later ? { resolved: true, resolution: `changes requested, then approved by ${later.author}` } : { resolved: false, resolution: 'changes requested; no approval followed' };
    }
    default:
      return { resolved: null, resolution: 'commented' };
  }
}
