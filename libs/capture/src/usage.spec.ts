import { readFileSync } from 'node:fs';
import { claudeCodeDebugSession, claudeCodeOlderSession, claudeCodeSubagentSession, codexWorkRollout, specStoryCursorChat } from '../../testing/src/fixtures';
import { describeRealData } from '../../testing/src/real-data';
import { sharedDataPath } from '../../testing/src/shared-data';
import { parseClaudeCodeUsage, parseCodexUsage, parseUsage } from './index';
import { wireTime } from './time';

const jsonl = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);

describe('turn usage read from transcripts', () => {
  it('CAPTURE-11: a Claude Code session gives one usage report per API response, its lines merged to the final counts', () => {
    const session = claudeCodeDebugSession();
    const reports = parseClaudeCodeUsage(session.text);
    const withUsage = jsonl(session.text).filter((l) => l['type'] === 'assistant' && l['message']?.usage);
    expect(withUsage.length).toBeGreaterThan(session.messages.length);
    expect(reports.map((r) => r.usage_id)).toEqual(session.messages.map((m) => m.messageId));
    // The first response streamed over five lines: the last one holds its final output count.
    expect(session.streamed.outputs).toEqual([10, 10, 10, 10, 211]);
    const first = reports[0]!;
    expect(first).toMatchObject({ usage_id: session.streamed.messageId, model: 'claude-opus-4-6', input_tokens: 3, output_tokens: 211, cache_read_tokens: 17_842, ts: withUsage[0]!['timestamp'] });
    expect(first.cache_write_tokens + first.cache_write_1h_tokens).toBe(8_052);
  });

  it('CAPTURE-11: cache writes are split by lifetime when the client says (the 1-hour cache costs more)', () => {
    const [first, second] = parseClaudeCodeUsage(claudeCodeDebugSession().text);
    expect(first).toMatchObject({ cache_write_tokens: 0, cache_write_1h_tokens: 8_052 });
    expect(second).toMatchObject({ cache_write_tokens: 1_200, cache_write_1h_tokens: 0, output_tokens: 640 });
  });

  it('CAPTURE-11: sub-agent responses count (their calls cost the same); synthetic messages and lines without usage do not', () => {
    const subagent = claudeCodeSubagentSession();
    expect(parseClaudeCodeUsage(subagent.text).map((r) => r.usage_id)).toEqual([subagent.messageId]);
    expect(parseClaudeCodeUsage(claudeCodeOlderSession())).toEqual([]);
    const synthetic = JSON.stringify({ type: 'assistant', message: { id: 'msg_x', model: '<synthetic>', usage: { input_tokens: 0, output_tokens: 0 } } });
    expect(parseClaudeCodeUsage(synthetic)).toEqual([]);
  });

  it('CAPTURE-11: a Codex rollout gives one report per distinct token_count event, cached input counted as a cache read', () => {
    const rollout = codexWorkRollout();
    const reports = parseCodexUsage(rollout.text);
    // Codex repeats an event with unchanged totals: the repeats are one report. Events without figures are none.
    expect(rollout.tokenEvents).toBeGreaterThan(rollout.distinctTotals);
    expect(reports).toHaveLength(rollout.distinctTotals);
    expect(reports.every((r) => r.model === 'gpt-5.1-codex')).toBe(true);
    expect(reports[1]).toMatchObject({ input_tokens: 10_400 - 10_112, cache_read_tokens: 10_112, output_tokens: 41 });
    // The reports add up to the session total Codex kept.
    const sum = reports.reduce((n, r) => n + r.input_tokens + r.cache_read_tokens + r.output_tokens, 0);
    expect(sum).toBe(rollout.totals.input_tokens + rollout.totals.output_tokens);
  });

  it('formats without usage (Markdown, JSON) report none', () => {
    expect(parseUsage('markdown', specStoryCursorChat())).toEqual([]);
    expect(parseUsage('json', '[{"role":"user","content":"x"}]')).toEqual([]);
  });
});

/** The same readers on real transcripts no one here wrote (../shared/data/transcripts). */
describeRealData('turn usage', () => {
  const read = (name: string) => readFileSync(sharedDataPath('transcripts', name), 'utf8');
  const lines = (name: string) => jsonl(read(name));

  it('CAPTURE-11: a real Claude Code session gives one usage report per API response, its lines merged to the final counts', () => {
    const name = 'claude-code-spotter-8463c716-head200.jsonl';
    const reports = parseClaudeCodeUsage(read(name));
    const assistant = lines(name).filter((l) => l['type'] === 'assistant' && l['message']?.usage);
    const ids = new Set(assistant.map((l) => l['message'].id));
    // 48 lines carry usage, written by 18 responses: one report each, never one per line.
    expect(assistant.length).toBeGreaterThan(ids.size);
    expect(reports.map((r) => r.usage_id)).toEqual([...ids]);
    // A response streamed over several lines: the last line holds its final output count.
    const streamed = 'msg_01L6rJ343R7Eu6pjghF1Hkdb';
    const parts = assistant.filter((l) => l['message'].id === streamed);
    expect(parts.map((l) => l['message'].usage.output_tokens)).toEqual([10, 10, 10, 211]);
    const report = reports.find((r) => r.usage_id === streamed)!;
    expect(report).toMatchObject({ model: 'claude-opus-4-6', input_tokens: 3, output_tokens: 211, cache_read_tokens: 17_842, ts: parts[0]!['timestamp'] });
    expect(report.cache_write_tokens + report.cache_write_1h_tokens).toBe(8_052);
  });

  it('CAPTURE-11: cache writes are split by lifetime when the client says (the 1-hour cache costs more)', () => {
    const [report] = parseClaudeCodeUsage(read('claude-code-spotter-short.jsonl'));
    // This response wrote 13,835 tokens, all to the 1-hour cache.
    expect(report).toMatchObject({ cache_write_tokens: 0, cache_write_1h_tokens: 13_835, cache_read_tokens: 11_515, output_tokens: 13 });
  });

  it('CAPTURE-11: sub-agent responses count; lines without usage do not', () => {
    expect(parseClaudeCodeUsage(read('claude-code-spotter-8463c716-subagent-acompact-f46190.jsonl'))).toHaveLength(1);
    expect(parseClaudeCodeUsage(read('claude-code-simonw-sample_session.jsonl'))).toEqual([]);
  });

  it('CAPTURE-11: a real Codex rollout gives one report per distinct token_count event, cached input counted as a cache read', () => {
    const name = 'codex-rollout-acidicsoil-2025-11-17T15-30-28-019a93b9.jsonl';
    const reports = parseCodexUsage(read(name));
    const events = lines(name).filter((l) => l['payload']?.type === 'token_count' && l['payload'].info);
    const totals = new Set(events.map((l) => l['payload'].info.total_token_usage.total_tokens));
    // Codex repeats an event with unchanged totals: the repeats are one report.
    expect(events.length).toBeGreaterThan(totals.size);
    expect(reports).toHaveLength(totals.size);
    expect(reports.every((r) => r.model === 'gpt-5.1-codex')).toBe(true);
    const last = events[events.length - 1]!['payload'].info;
    // The reports add up to the session total Codex kept.
    const sum = reports.reduce((n, r) => n + r.input_tokens + r.cache_read_tokens + r.output_tokens, 0);
    expect(sum).toBe(last.total_token_usage.input_tokens + last.total_token_usage.output_tokens);
  });

  it('a real SpecStory export reports no usage', () => {
    expect(parseUsage('markdown', read('markdown-specstory-minsky-2025-04-28_18-53-available-tasks-inquiry.md'))).toEqual([]);
  });
});

describe('wireTime [issue 9: strict dates]', () => {
  it('keeps a strict ISO time, normalises a parseable one, and drops one the ops would refuse', () => {
    expect(wireTime('2026-11-29T10:00:00.123Z')).toBe('2026-11-29T10:00:00.123Z');
    expect(wireTime('2026-11-29T10:00:00+02:00')).toBe('2026-11-29T10:00:00+02:00');
    expect(wireTime('Sun, 29 Nov 2026 10:00:00 GMT')).toBe('2026-11-29T10:00:00.000Z');
    expect(wireTime('+275760-09-13T00:00:00Z')).toBeUndefined();
    expect(wireTime('not a time')).toBeUndefined();
    expect(wireTime(undefined)).toBeUndefined();
  });
});
