import type { UsageReport } from '@loom/contracts';
import { tsField } from './time';
import { jsonLines } from './transcript';
import type { TranscriptFormat } from './transcript';

interface ClaudeLine {
  type?: string;
  timestamp?: string;
  message?: {
    id?: string;
    model?: string;
    usage?: {
      input_tokens?: number;
      output_tokens?: number;
      cache_creation_input_tokens?: number;
      cache_read_input_tokens?: number;
      cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
    };
  };
}

/** A usage report read from a transcript: every token kind is filled in. */
export type TranscriptUsage = Required<Omit<UsageReport, 'ts'>> & Pick<UsageReport, 'ts'>;

/** Models Claude Code names for messages no model produced (a cancelled request, an API error). */
const NOT_A_MODEL = /^<.*>$/;

/**
 * The model usage of a Claude Code session, one report per API response. Claude Code writes
 * one response as several lines sharing `message.id`, each repeating the usage as it stood when
 * the line was written (output tokens grow while it streams), so the reports merge per id and
 * keep the largest figure of each kind. Sub-agent lines are counted: their calls cost the same.
 */
export function parseClaudeCodeUsage(text: string): TranscriptUsage[] {
  const byId = new Map<string, TranscriptUsage>();
  for (const line of jsonLines<ClaudeLine>(text)) {
    const message = line.message;
    const usage = message?.usage;
    if (line.type !== 'assistant' || !message?.id || !usage || !message.model || NOT_A_MODEL.test(message.model)) continue;
    const cacheWrite = count(usage.cache_creation_input_tokens);
    // The 1-hour cache is priced above the 5-minute one; a line without the split is all 5-minute.
    const cacheWrite1h = Math.min(cacheWrite, count(usage.cache_creation?.ephemeral_1h_input_tokens));
    const report: TranscriptUsage = {
      usage_id: message.id,
      model: message.model,
      ...tsField(line.timestamp),
      input_tokens: count(usage.input_tokens),
      output_tokens: count(usage.output_tokens),
      cache_write_tokens: cacheWrite - cacheWrite1h,
      cache_write_1h_tokens: cacheWrite1h,
      cache_read_tokens: count(usage.cache_read_input_tokens),
    };
    const seen = byId.get(message.id);
    byId.set(message.id, seen ? larger(seen, report) : report);
  }
  return [...byId.values()];
}

interface CodexLine {
  type?: string;
  timestamp?: string;
  payload?: {
    type?: string;
    model?: string;
    info?: {
      total_token_usage?: { total_tokens?: number };
      last_token_usage?: { input_tokens?: number; cached_input_tokens?: number; output_tokens?: number; reasoning_output_tokens?: number };
    } | null;
  };
}

/**
 * The model usage of a Codex rollout, one report per `token_count` event. Codex repeats an
 * event with unchanged totals, so the session's running total is the report's id: a repeat is
 * the same report. Codex counts cached input inside `input_tokens` (OpenAI's convention); here
 * input is the uncached part, as in Claude's reports, and the cached part is a cache read.
 */
export function parseCodexUsage(text: string): TranscriptUsage[] {
  const byId = new Map<string, TranscriptUsage>();
  let model: string | undefined;
  for (const line of jsonLines<CodexLine>(text)) {
    if (line.type === 'turn_context' && line.payload?.model) model = line.payload.model;
    const info = line.payload?.info;
    if (line.type !== 'event_msg' || line.payload?.type !== 'token_count' || !info?.last_token_usage || !model) continue;
    const total = count(info.total_token_usage?.total_tokens);
    const last = info.last_token_usage;
    const cached = count(last.cached_input_tokens);
    const id = `codex-total-${total}`;
    if (byId.has(id)) continue;
    byId.set(id, {
      usage_id: id,
      model,
      ...tsField(line.timestamp),
      input_tokens: Math.max(0, count(last.input_tokens) - cached),
      // Reasoning tokens are billed as output and already counted in output_tokens.
      output_tokens: count(last.output_tokens),
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      cache_read_tokens: cached,
    });
  }
  return [...byId.values()];
}

/** A session's usage reports, for the formats that carry usage (the others have none). */
export function parseUsage(format: TranscriptFormat, text: string): TranscriptUsage[] {
  if (format === 'claude-code') return parseClaudeCodeUsage(text);
  if (format === 'codex') return parseCodexUsage(text);
  return [];
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function larger(a: TranscriptUsage, b: TranscriptUsage): TranscriptUsage {
  return {
    ...a,
    input_tokens: Math.max(a.input_tokens, b.input_tokens),
    output_tokens: Math.max(a.output_tokens, b.output_tokens),
    cache_write_tokens: Math.max(a.cache_write_tokens, b.cache_write_tokens),
    cache_write_1h_tokens: Math.max(a.cache_write_1h_tokens, b.cache_write_1h_tokens),
    cache_read_tokens: Math.max(a.cache_read_tokens, b.cache_read_tokens),
  };
}
