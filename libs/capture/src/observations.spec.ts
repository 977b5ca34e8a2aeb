import { readFileSync } from 'node:fs';
import { claudeCodeDebugSession, codexWorkRollout } from '../../testing/src/fixtures';
import { describeRealData } from '../../testing/src/real-data';
import { sharedDataPath } from '../../testing/src/shared-data';
import { parseClaudeCodeObservations, parseCodexObservations, parseObservations } from './index';

const jsonl = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);

describe('tool actions read from transcripts (episodic observations)', () => {
  it('CAPTURE-08: a Claude Code session gives one observation per tool_use, with what the tool was asked and the outcome its result reported', () => {
    const session = claudeCodeDebugSession();
    const observations = parseClaudeCodeObservations(session.text);
    expect(observations.map((o) => ({ obs_id: o.obs_id, tool: o.tool, summary: o.summary, path: o.path, error: o.outcome === 'error' }))).toEqual(
      session.tools.map((t) => ({ obs_id: t.id, tool: t.name, summary: t.summary, path: t.path, error: t.error })),
    );
    expect(observations.every((o) => o.outcome !== 'unknown')).toBe(true);
    // No tool output, no file body and no edit string ever reaches a summary; a long command is cut.
    const text = JSON.stringify(observations);
    expect(text).not.toMatch(/Division by zero|SECRET_OLD_BODY|SECRET_NEW_BODY|FILE_BODY_NEVER_SUMMARISED|import \{ Ledger \}/);
    expect(observations.every((o) => o.summary.length <= 320)).toBe(true);
    expect(observations.some((o) => o.summary.endsWith('…'))).toBe(true);
  });

  it('CAPTURE-08: a tool_result marked is_error makes the observation an error; an Edit is named by its file, never its strings', () => {
    const session = [
      { type: 'assistant', timestamp: '2026-11-29T10:00:00Z', message: { content: [{ type: 'tool_use', id: 'tu1', name: 'Edit', input: { file_path: 'apps/billing/export.ts', old_string: 'SECRET_OLD', new_string: 'SECRET_NEW' } }] } },
      { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'tu1', is_error: true, content: 'String not found' }] } },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const [edit] = parseClaudeCodeObservations(session);
    expect(edit).toEqual({ obs_id: 'tu1', tool: 'Edit', summary: 'Edit: apps/billing/export.ts', path: 'apps/billing/export.ts', outcome: 'error', ts: '2026-11-29T10:00:00Z', seq: 0 });
  });

  it('CAPTURE-08: a Codex rollout gives one observation per function_call, the shell wrapper dropped, the exit code as outcome', () => {
    const rollout = codexWorkRollout();
    const observations = parseCodexObservations(rollout.text);
    const shells = observations.filter((o) => o.tool === 'shell');
    expect(shells.map((o) => [o.obs_id, o.summary, o.outcome])).toEqual(rollout.shellCalls.map((c) => [c.id, c.summary, c.error ? 'error' : 'ok']));
    // The plan tool's output is not the shell's JSON: its outcome is unknown, never a guess.
    expect(observations.find((o) => o.tool === 'update_plan')).toMatchObject({ summary: 'update_plan', outcome: 'unknown' });
    expect(observations).toHaveLength(rollout.shellCalls.length + 1);
    const lines = jsonl(rollout.text);
    expect(observations.every((o) => lines[o.seq!]!['payload'].call_id === o.obs_id)).toBe(true);
    expect(parseObservations('markdown', '# user\nhi')).toEqual([]);
  });
});

/** The same readers on real transcripts no one here wrote (../shared/data/transcripts). */
describeRealData('tool actions', () => {
  const read = (name: string) => readFileSync(sharedDataPath('transcripts', name), 'utf8');

  it('CAPTURE-08: a real Claude Code session gives one observation per tool_use, with what the tool was asked and the outcome its result reported', () => {
    const name = 'claude-code-spotter-tool_heavy.jsonl';
    const observations = parseClaudeCodeObservations(read(name));
    const uses = jsonl(read(name)).flatMap((l) => (Array.isArray(l['message']?.content) ? l['message'].content : []).filter((b: any) => b.type === 'tool_use'));
    expect(observations.map((o) => o.obs_id)).toEqual(uses.map((u: any) => u.id));
    expect(observations[0]).toMatchObject({ tool: 'Bash', summary: 'Bash: mix phx.server', outcome: 'ok' });
    const readFile = observations.find((o) => o.tool === 'Read')!;
    expect(readFile).toMatchObject({ summary: 'Read: /home/marco/projects/spotter/assets/js/app.js', path: '/home/marco/projects/spotter/assets/js/app.js' });
    expect(observations.find((o) => o.tool === 'WebFetch')!.summary).toBe('WebFetch: https://github.com/xtermjs/xterm.js/issues/1343');
    // No tool output, and no file body, ever reaches a summary.
    const text = JSON.stringify(observations);
    expect(text).not.toContain('import \\"phoenix_html\\"');
    expect(observations.every((o) => o.summary.length <= 320)).toBe(true);
  });

  it('CAPTURE-08: a real Codex rollout gives one observation per function_call, the shell wrapper dropped, the exit code as outcome', () => {
    const observations = parseCodexObservations(read('codex-rollout-acidicsoil-2025-11-17T15-30-28-019a93b9.jsonl'));
    expect(observations.length).toBe(39);
    expect(observations[0]).toMatchObject({ tool: 'shell', summary: 'shell: ls', outcome: 'ok' });
    expect(observations[1]!.summary).toBe("shell: cat 'LM Studio configuration.md'");
  });
});
