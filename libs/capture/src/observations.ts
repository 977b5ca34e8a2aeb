import type { ObservationOutcome } from '@loom/contracts';
import { tsField } from './time';
import { jsonLines, type TranscriptFormat } from './transcript';

/** One tool action read from a transcript, ready for observe.record. */
export interface CapturedObservation {
  obs_id: string;
  tool: string;
  summary: string;
  path?: string;
  outcome: ObservationOutcome;
  ts?: string;
  /** Which JSON line of the file asked for the action: orders it among the turns. Never sent. */
  seq?: number;
}

/** How long a summary's argument may be: enough for a command line, never a file's body. */
const ARGUMENT_CHARS = 300;

interface ClaudeLine {
  type?: string;
  timestamp?: string;
  message?: { content?: unknown };
}

interface ToolUse {
  type?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
  tool_use_id?: string;
  is_error?: boolean;
}

/**
 * The tool actions of a Claude Code session: each `tool_use` block of the assistant, with the
 * outcome its `tool_result` reported. The summary names what the tool was asked to do (a
 * command, a file, a pattern, a URL) in one line; inputs that carry content (a file's new text,
 * an edit's strings, a prompt) are left out, and no tool output is ever read.
 */
export function parseClaudeCodeObservations(text: string): CapturedObservation[] {
  const byId = new Map<string, CapturedObservation>();
  let seq = -1;
  for (const line of jsonLines<ClaudeLine>(text)) {
    seq += 1;
    const blocks = Array.isArray(line.message?.content) ? (line.message!.content as ToolUse[]) : [];
    for (const block of blocks) {
      if (block?.type === 'tool_use' && block.id && block.name) {
        const { summary, path } = describeClaudeTool(block.name, block.input ?? {});
        byId.set(block.id, { obs_id: block.id, tool: block.name, summary, ...(path ? { path } : {}), outcome: 'unknown', ...tsField(line.timestamp), seq });
      }
      if (block?.type === 'tool_result' && block.tool_use_id) {
        const seen = byId.get(block.tool_use_id);
        if (seen) seen.outcome = block.is_error === true ? 'error' : 'ok';
      }
    }
  }
  return [...byId.values()];
}

function describeClaudeTool(tool: string, input: Record<string, unknown>): { summary: string; path?: string } {
  const str = (key: string): string | undefined => (typeof input[key] === 'string' && input[key] !== '' ? (input[key] as string) : undefined);
  const path = str('file_path') ?? str('notebook_path') ?? str('path');
  const argument = str('command') ?? str('pattern') ?? str('url') ?? str('query') ?? str('description') ?? str('skill') ?? path;
  return { summary: argument ? `${tool}: ${oneLine(argument)}` : tool, ...(path ? { path } : {}) };
}

interface CodexLine {
  type?: string;
  timestamp?: string;
  payload?: { type?: string; name?: string; arguments?: string; call_id?: string; output?: string };
}

/**
 * The tool actions of a Codex rollout: each `function_call` (the shell, apply_patch, …), with the
 * exit code its output reported. The shell's `bash -lc` wrapper is dropped from the summary.
 */
export function parseCodexObservations(text: string): CapturedObservation[] {
  const byId = new Map<string, CapturedObservation>();
  let seq = -1;
  for (const line of jsonLines<CodexLine>(text)) {
    seq += 1;
    const p = line.payload;
    if (line.type !== 'response_item' || !p?.call_id) continue;
    if (p.type === 'function_call' && p.name) {
      const args = parseJson(p.arguments);
      const command = Array.isArray(args['command']) ? (args['command'] as unknown[]).map(String) : undefined;
      const shown = command ? (command[0] === 'bash' && command[1] === '-lc' ? command.slice(2).join(' ') : command.join(' ')) : undefined;
      const path = typeof args['path'] === 'string' ? args['path'] : undefined;
      byId.set(p.call_id, {
        obs_id: p.call_id,
        tool: p.name,
        summary: shown ? `${p.name}: ${oneLine(shown)}` : p.name,
        ...(path ? { path } : {}),
        outcome: 'unknown',
        ...tsField(line.timestamp),
        seq,
      });
    }
    if (p.type === 'function_call_output') {
      const seen = byId.get(p.call_id);
      const exit = (parseJson(p.output)['metadata'] as { exit_code?: unknown } | undefined)?.exit_code;
      if (seen) seen.outcome = typeof exit === 'number' ? (exit === 0 ? 'ok' : 'error') : 'unknown';
    }
  }
  return [...byId.values()];
}

/** A session's tool actions, for the formats that record them (the others have none). */
export function parseObservations(format: TranscriptFormat, text: string): CapturedObservation[] {
  if (format === 'claude-code') return parseClaudeCodeObservations(text);
  if (format === 'codex') return parseCodexObservations(text);
  return [];
}

function oneLine(value: string): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > ARGUMENT_CHARS ? `${Array.from(flat).slice(0, ARGUMENT_CHARS).join('')}…` : flat;
}

function parseJson(value: string | undefined): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(value ?? '');
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
