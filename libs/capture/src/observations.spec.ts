import { readFileSync } from 'node:fs';
import { sharedDataPath } from '../../testing/src/shared-data';
import { parseClaudeCodeObservations, parseCodexObservations, parseObservations } from './index';

/** Real transcripts no one here wrote (../shared/data/transcripts). */
const read = (name: string) => readFileSync(sharedDataPath('transcripts', name), 'utf8');
const lines = (name: string) => read(name).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);

describe('tool actions read from transcripts (episodic observations)', () => {
  it('CAPTURE-08: a real Claude Code session gives one observation per tool_use, with what the tool was asked and the outcome its result reported', () => {
    const name = 'claude-code-spotter-tool_heavy.jsonl';
    const observations = parseClaudeCodeObservations(read(name));
    const uses = lines(name).flatMap((l) => (Array.isArray(l['message']?.content) ? l['message'].content : []).filter((b: any) => b.type === 'tool_use'));
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
    const observations = parseCodexObservations(read('codex-rollout-acidicsoil-2025-11-17T15-30-28-019a93b9.jsonl'));
    expect(observations.length).toBe(39);
    expect(observations[0]).toMatchObject({ tool: 'shell', summary: 'shell: ls', outcome: 'ok' });
    expect(observations[1]!.summary).toBe("shell: cat 'LM Studio configuration.md'");
    expect(parseObservations('markdown', '# user\nhi')).toEqual([]);
  });
});
