import type { BriefEvent, BriefEventKind } from '@loom/contracts';
import type { CapturedObservation } from './observations';
import type { CapturedTurn, ParsedTranscript } from './transcript';

/** Tool names by what they do, across Claude Code and Codex (case-insensitive). */
const EDITS = new Set(['edit', 'multiedit', 'write', 'notebookedit', 'apply_patch']);
const READS = new Set(['read', 'notebookread', 'view_image']);
const COMMANDS = new Set(['bash', 'shell', 'exec_command', 'local_shell', 'bashoutput', 'killshell']);
const SEARCHES = new Set(['grep', 'glob', 'ls', 'websearch', 'webfetch', 'web_search']);

/**
 * A tool action as a brief event. A failed one is an `error`, which the brief's status names;
 * its path is left off, so a file that could not be read does not become a key file.
 */
export function observationEvent(observation: CapturedObservation, cwd?: string): BriefEvent {
  // Paths inside the project read relative to it: a teammate's checkout is somewhere else.
  const local = (text: string): string => (cwd ? text.split(`${cwd.replace(/\/+$/, '')}/`).join('') : text);
  const summary = local(observation.summary);
  if (observation.outcome === 'error') return { kind: 'error', text: `${summary} (failed)` };
  const tool = observation.tool.toLowerCase();
  const kind: BriefEventKind = EDITS.has(tool) ? 'edit' : READS.has(tool) ? 'read' : COMMANDS.has(tool) ? 'command' : SEARCHES.has(tool) ? 'search' : 'tool';
  return { kind, text: summary, ...(observation.path ? { path: local(observation.path) } : {}) };
}

/** The cursor of an entry known only by its JSON line (`line:<n>`). */
const LINE_CURSOR = 'line:';

function lineCursor(after: string): number | undefined {
  const match = /^line:(\d+)$/.exec(after);
  return match ? Number(match[1]) : undefined;
}

/** What one brief save covers: the entries after the last save, and the id to resume after. */
export interface BriefWindow {
  turns: CapturedTurn[];
  observations: CapturedObservation[];
  clientSummary?: string | undefined;
  /** The id of the window's last entry (a turn's msg_id or a tool action's id): the next save's `after`. */
  cursor?: string | undefined;
  /** Where the session ran: paths under it are given relative to it. */
  cwd?: string | undefined;
}

/**
 * The entries of a transcript after `after` (the cursor of the previous save: a turn's msg_id or
 * a tool action's id), in file order. An unknown `after` (the file was rewritten) covers it all.
 */
export function briefWindow(parsed: ParsedTranscript, observations: readonly CapturedObservation[], after?: string): BriefWindow {
  const turns = parsed.turns.filter((t) => t.role === 'user' || t.role === 'assistant');
  let clientSummary = parsed.clientSummary;
  let kept = { turns, observations: [...observations] };
  if (after !== undefined) {
    const turnAt = parsed.turns.findIndex((t) => t.msg_id === after);
    const cut = parsed.turns[turnAt]?.seq ?? observations.find((o) => o.obs_id === after)?.seq ?? lineCursor(after);
    if (cut !== undefined) {
      kept = { turns: turns.filter((t) => (t.seq ?? -1) > cut), observations: observations.filter((o) => (o.seq ?? -1) > cut) };
      // The summary is new when it came after the turns the last save covered.
      const before = parsed.turns.filter((t) => (t.seq ?? -1) <= cut).length;
      if ((parsed.clientSummaryAt ?? 0) <= before - 1) clientSummary = undefined;
    } else if (turnAt >= 0) {
      // A format without line numbers: the turns after the one named.
      kept = { turns: parsed.turns.slice(turnAt + 1).filter((t) => t.role === 'user' || t.role === 'assistant'), observations: [] };
      if ((parsed.clientSummaryAt ?? 0) <= turnAt) clientSummary = undefined;
    }
  }
  // A turn without an id of its own (Codex's) is named by its line, so a save after it resumes after it.
  const last = [...kept.turns.map((t) => ({ seq: t.seq ?? -1, id: t.msg_id ?? (t.seq !== undefined ? `${LINE_CURSOR}${t.seq}` : undefined) })), ...kept.observations.map((o) => ({ seq: o.seq ?? -1, id: o.obs_id as string | undefined }))]
    .filter((e) => e.id !== undefined)
    .sort((a, b) => a.seq - b.seq)
    .at(-1);
  return { ...kept, clientSummary, cursor: last?.id, cwd: parsed.cwd };
}

/** The window's turns and tool actions as brief events, in the order they happened, then the client's summary. */
export function briefEvents(window: BriefWindow, maxEvents: number, maxChars: number): BriefEvent[] {
  const entries = [
    ...window.turns.map((t, i) => ({ seq: t.seq ?? i, event: { kind: t.role as BriefEventKind, text: Array.from(t.content).slice(0, maxChars).join('') } })),
    ...window.observations.map((o, i) => ({ seq: o.seq ?? window.turns.length + i, event: observationEvent(o, window.cwd) })),
  ].sort((a, b) => a.seq - b.seq);
  const events = entries.map((e) => e.event);
  if (window.clientSummary) events.push({ kind: 'summary', text: window.clientSummary });
  return events.slice(-maxEvents);
}
