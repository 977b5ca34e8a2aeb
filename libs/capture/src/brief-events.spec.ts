import { readFileSync } from 'node:fs';
import { claudeCodeDebugSession, codexWorkRollout } from '../../testing/src/fixtures';
import { describeRealData } from '../../testing/src/real-data';
import { sharedDataPath } from '../../testing/src/shared-data';
import { briefEvents, briefWindow, observationEvent, parseObservations, parseTranscript } from './index';

const session = (name: string, text: string) => {
  const parsed = parseTranscript(name, text);
  return { parsed, observations: parseObservations(parsed.format, text) };
};

describe('brief events from a session (turns and tool actions)', () => {
  const debug = () => session('session.jsonl', claudeCodeDebugSession().text);

  it('CAPTURE-09: a Claude Code session gives its turns and tool actions in the order they happened, files relative to the project', () => {
    const { parsed, observations } = debug();
    const events = briefEvents(briefWindow(parsed, observations), 4_000, 20_000);
    expect(events).toHaveLength(parsed.turns.length + observations.length);
    expect(events[0]).toMatchObject({ kind: 'user' });
    // The fix is written after the assistant says it will make it, and its test after that.
    const said = events.findIndex((e) => e.kind === 'assistant' && e.text.startsWith('Let me implement the empty-ledger guard'));
    const wrote = events.findIndex((e) => e.kind === 'edit' && e.path === 'src/export.ts');
    const tested = events.findIndex((e) => e.kind === 'edit' && e.path === 'src/export.test.ts');
    expect(said).toBeGreaterThan(0);
    expect(wrote).toBeGreaterThan(said);
    expect(tested).toBeGreaterThan(wrote);
    expect(events.filter((e) => e.kind === 'read').map((e) => e.path)).toEqual(['src/export.ts']);
    expect(events.filter((e) => e.kind === 'search').map((e) => e.text)).toEqual(['Grep: rowsPerPage', 'WebFetch: https://github.com/example/ledger/issues/42', 'Glob: **/*.csv']);
    // A tool whose result was an error is an error event, with no path (it is not a key file).
    expect(events.filter((e) => e.kind === 'error')).toEqual([{ kind: 'error', text: 'Bash: npm test -- export (failed)' }]);
  });

  it('CAPTURE-09: a save resumes after the last entry of the one before, a turn or a tool action; an unknown cursor covers the whole session', () => {
    const { parsed, observations } = debug();
    const all = briefWindow(parsed, observations);
    // The session ends on a text answer: the cursor is that turn.
    expect(all.cursor).toBe(parsed.turns.at(-1)!.msg_id);
    const byObservation = briefWindow(parsed, observations, observations[5]!.obs_id);
    expect(byObservation.observations.map((o) => o.obs_id)).toEqual(observations.slice(6).map((o) => o.obs_id));
    expect(byObservation.turns.every((t) => t.seq! > observations[5]!.seq!)).toBe(true);
    expect(byObservation.turns.length).toBeGreaterThan(0);
    const byTurn = briefWindow(parsed, observations, parsed.turns[3]!.msg_id);
    expect(byTurn.turns.map((t) => t.msg_id)).toEqual(parsed.turns.slice(4).map((t) => t.msg_id));
    expect(byTurn.observations.every((o) => o.seq! > parsed.turns[3]!.seq!)).toBe(true);
    expect(briefWindow(parsed, observations, all.cursor)).toMatchObject({ turns: [], observations: [] });
    expect(briefWindow(parsed, observations, 'not-in-this-file').observations).toHaveLength(observations.length);
  });

  it('CAPTURE-09 [issue 12: Codex brief re-saved at every Stop] a Codex answer (no id of its own) is a cursor by its line, so the next save resumes after it', () => {
    const rollout = codexWorkRollout();
    const { parsed, observations } = session('rollout.jsonl', rollout.text);
    const all = briefWindow(parsed, observations);
    // The rollout ends on the answer, after the last shell call.
    expect(all.cursor).toBe(`line:${parsed.turns.at(-1)!.seq}`);
    expect(briefWindow(parsed, observations, all.cursor)).toMatchObject({ turns: [], observations: [] });
    const more = rollout.text + JSON.stringify({ timestamp: '2026-03-03T15:00:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Now add a retry' }] } }) + '\n';
    const next = session('rollout.jsonl', more);
    expect(briefWindow(next.parsed, next.observations, all.cursor).turns.map((t) => t.content)).toEqual(['Now add a retry']);
  });

  it("CAPTURE-09: a Codex rollout's shell commands are command events, and a non-zero exit an error", () => {
    const rollout = codexWorkRollout();
    const { parsed, observations } = session('rollout.jsonl', rollout.text);
    const events = briefEvents(briefWindow(parsed, observations), 4_000, 20_000);
    expect(events.filter((e) => e.kind === 'command').map((e) => e.text)).toEqual(rollout.shellCalls.filter((c) => !c.error).map((c) => c.summary));
    expect(events.filter((e) => e.kind === 'error').map((e) => e.text)).toEqual(rollout.shellCalls.filter((c) => c.error).map((c) => `${c.summary} (failed)`));
  });

  it('maps tools by what they do', () => {
    const event = (tool: string, outcome: 'ok' | 'error' = 'ok') => observationEvent({ obs_id: 'x', tool, summary: `${tool}: /p/a.ts`, path: '/p/a.ts', outcome }, '/p');
    expect(event('Edit')).toEqual({ kind: 'edit', text: 'Edit: a.ts', path: 'a.ts' });
    expect(event('Read').kind).toBe('read');
    expect(event('Bash').kind).toBe('command');
    expect(event('Grep').kind).toBe('search');
    expect(event('TodoWrite').kind).toBe('tool');
    expect(event('Edit', 'error')).toEqual({ kind: 'error', text: 'Edit: a.ts (failed)' });
  });
});

/** The same on real transcripts no one here wrote (../shared/data/transcripts). */
describeRealData('brief events', () => {
  const real = (name: string) => session(name, readFileSync(sharedDataPath('transcripts', name), 'utf8'));
  const name = 'claude-code-spotter-8463c716-head200.jsonl';

  it('CAPTURE-09: a real Claude Code session gives its turns and tool actions in the order they happened, files relative to the project', () => {
    const { parsed, observations } = real(name);
    const events = briefEvents(briefWindow(parsed, observations), 4_000, 20_000);
    expect(events).toHaveLength(parsed.turns.length + observations.length);
    expect(events[0]).toMatchObject({ kind: 'user' });
    // The renderer is written after the assistant says it will implement it, and its test after that.
    const said = events.findIndex((e) => e.kind === 'assistant' && e.text.startsWith('Let me implement the enriched TranscriptRenderer'));
    const wrote = events.findIndex((e) => e.kind === 'edit' && e.path === 'lib/spotter/services/transcript_renderer.ex');
    const tested = events.findIndex((e) => e.kind === 'edit' && e.path === 'test/spotter/services/transcript_renderer_test.exs');
    expect(said).toBeGreaterThan(0);
    expect(wrote).toBeGreaterThan(said);
    expect(tested).toBeGreaterThan(wrote);
    expect(events.filter((e) => e.kind === 'read').length).toBeGreaterThan(0);
    expect(events.filter((e) => e.kind === 'search').length).toBeGreaterThan(0);
    const failed = events.filter((e) => e.kind === 'error');
    expect(failed.length).toBe(observations.filter((o) => o.outcome === 'error').length);
    expect(failed.every((e) => e.path === undefined && e.text.endsWith('(failed)'))).toBe(true);
  });

  it('CAPTURE-09: on a real session a save resumes after the last entry of the one before; an unknown cursor covers the whole session', () => {
    const { parsed, observations } = real(name);
    const all = briefWindow(parsed, observations);
    expect(all.cursor).toBe(observations.at(-1)!.obs_id);
    const byObservation = briefWindow(parsed, observations, observations[10]!.obs_id);
    expect(byObservation.observations.map((o) => o.obs_id)).toEqual(observations.slice(11).map((o) => o.obs_id));
    expect(byObservation.turns.every((t) => t.seq! > observations[10]!.seq!)).toBe(true);
    const byTurn = briefWindow(parsed, observations, parsed.turns[3]!.msg_id);
    expect(byTurn.turns.map((t) => t.msg_id)).toEqual(parsed.turns.slice(4).map((t) => t.msg_id));
    expect(byTurn.observations.every((o) => o.seq! > parsed.turns[3]!.seq!)).toBe(true);
    expect(briefWindow(parsed, observations, all.cursor)).toMatchObject({ turns: [], observations: [] });
    expect(briefWindow(parsed, observations, 'not-in-this-file').observations).toHaveLength(observations.length);
  });

  it("CAPTURE-09: a real Codex rollout's shell commands are command events, and a non-zero exit an error", () => {
    const { parsed, observations } = real('codex-rollout-acidicsoil-2025-11-17T15-30-28-019a93b9.jsonl');
    const events = briefEvents(briefWindow(parsed, observations), 4_000, 20_000);
    expect(events.filter((e) => e.kind === 'command').length).toBeGreaterThan(10);
    expect(events.filter((e) => e.kind === 'error').length).toBe(observations.filter((o) => o.outcome === 'error').length);
  });
});
