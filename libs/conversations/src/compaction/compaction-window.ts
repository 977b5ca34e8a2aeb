import { readsAsHigh } from '@loom/sensitivity';

/** A live transcript row of the compacting agent, in thread order. */
export interface WindowTurn {
  msg_id: string;
  ts: string;
  role: string;
  content: string;
  is_high: boolean;
  is_summary: boolean;
  is_saved: boolean;
  /** A summary's `metadata.compacted_from`. */
  compacted_from: string[];
}

export interface WindowOptions {
  keepRecent: number;
  minToCompact: number;
  promptChars: number;
  summaryAllowanceChars: number;
}

export type WindowPlan =
  /** Fewer new turns than min_to_compact: nothing is done and no LLM is called. */
  | { kind: 'below-min'; newTurns: number }
  /** Every turn before the kept tail is saved or high. */
  | { kind: 'nothing-to-compact' }
  | {
      kind: 'compact';
      /** Earlier summaries at the start of the window, read from the separate allowance. */
      folded: WindowTurn[];
      /** Summaries a failed run left: replaced without being read. */
      replacedUnread: WindowTurn[];
      /** The turns (and summaries further in) the summarizer reads, within the prompt budget. */
      body: WindowTurn[];
      /** Everything the new summary replaces, in thread order. */
      retire: WindowTurn[];
      /** The non-summary turns summarised: `compacted_from` and `messages_summarized`. */
      summarized: WindowTurn[];
    };

/** What a turn costs in the prompt: its text and a line of framing. */
export function promptCost(turn: WindowTurn): number {
  return turn.content.length + 16;
}

/**
 * Chooses what one compaction run summarises. Pure, so every rule of the spec is tested on
 * plain data:
 * - the last `keepRecent` turns are never touched;
 * - high and saved turns are left out of the window and stay live;
 * - summaries a failed run left are replaced unread;
 * - summaries at the start fold in from their own allowance, or stay live when they do not fit;
 * - the rest is read in order while it fits the prompt budget; turns past it wait for a later run.
 */
export function planCompaction(turns: WindowTurn[], options: WindowOptions): WindowPlan {
  const candidates = turns.slice(0, Math.max(0, turns.length - options.keepRecent));
  const excluded = (t: WindowTurn): boolean => !t.is_summary && (t.is_saved || t.is_high || readsAsHigh(t.content));
  const window = candidates.filter((t) => !excluded(t));
  const windowTurnIds = new Set(window.filter((t) => !t.is_summary).map((t) => t.msg_id));
  const plainCandidates = window.filter((t) => !t.is_summary).length;
  if (plainCandidates === 0) {
    return candidates.some(excluded) ? { kind: 'nothing-to-compact' } : { kind: 'below-min', newTurns: 0 };
  }

  const tsOf = new Map(window.map((t) => [t.msg_id, t.ts]));
  const leftByFailedRun = (s: WindowTurn): boolean =>
    s.compacted_from.length > 0 && s.compacted_from.every((id) => windowTurnIds.has(id)) && tsOf.get(s.compacted_from[0]!) === s.ts;

  const folded: WindowTurn[] = [];
  const replacedUnread: WindowTurn[] = [];
  const body: WindowTurn[] = [];
  let allowance = options.summaryAllowanceChars;
  let budget = options.promptChars;
  let leading = true;
  let full = false;
  for (const turn of window) {
    if (turn.is_summary && leftByFailedRun(turn)) {
      replacedUnread.push(turn);
      continue;
    }
    if (turn.is_summary && leading) {
      // One that does not fit what is left of the allowance stays live and untouched.
      if (promptCost(turn) <= allowance) {
        allowance -= promptCost(turn);
        folded.push(turn);
      }
      continue;
    }
    leading = false;
    if (full) continue;
    // The first turn is read even when it alone is over the budget (cut), or nothing would ever move.
    if (promptCost(turn) > budget && body.length > 0) {
      full = true;
      continue;
    }
    budget -= promptCost(turn);
    body.push(turn);
  }

  const summarized = body.filter((t) => !t.is_summary);
  if (summarized.length < options.minToCompact) return { kind: 'below-min', newTurns: summarized.length };
  const retiring = new Set([...folded, ...replacedUnread, ...body]);
  // A leftover whose turns were not all read this time still goes: its turns stay live, so nothing is lost.
  return { kind: 'compact', folded, replacedUnread, body, retire: window.filter((t) => retiring.has(t)), summarized };
}
