import { readFileSync } from 'node:fs';
import {
  claudeCodeCompactedSession,
  claudeCodeDebugSession,
  claudeCodeOlderSession,
  cursorAgentTranscript,
  claudeCodeSubagentSession,
  CODEX_PROMPT,
  codexWorkRollout,
  COMPACT_SUMMARY,
  CURSOR_FIRST_PROMPT,
  LEDGER_BRANCH,
  LEDGER_CWD,
  specStoryCursorChat,
} from '../../testing/src/fixtures';
import { describeRealData } from '../../testing/src/real-data';
import { sharedDataPath } from '../../testing/src/shared-data';
import { detectFormat, parseClaudeCodeTranscript, parseCodexTranscript, parseCursorTranscript, parseJsonTranscript, parseMarkdownTranscript, parseTranscript, TranscriptFormatError } from './index';

const jsonl = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);

describe('Claude Code transcripts', () => {
  it('CAPTURE-01: prompts and assistant text, msg_id the entry uuid, a response streamed over several lines merged, tool, progress, meta and slash-command lines skipped', () => {
    const session = claudeCodeDebugSession();
    const parsed = parseClaudeCodeTranscript(session.text);
    expect(parsed).toMatchObject({ format: 'claude-code', sessionId: session.sessionId, cwd: LEDGER_CWD, branch: LEDGER_BRANCH });
    expect(parsed.turns.filter((t) => t.role === 'user').map((t) => [t.msg_id, t.content])).toEqual(session.prompts.map((p) => [p.uuid, p.text]));
    // The first response is five lines sharing one message.id: one turn, named by its first line, its thinking kept as reasoning.
    const first = parsed.turns[1]!;
    expect(first).toMatchObject({ role: 'assistant', msg_id: session.streamed.uuids[0], content: 'Let me run the export tests and read the job first.' });
    expect(first.reasoning).toMatch(/^The export probably divides/);
    expect(parsed.turns.some((t) => session.streamed.uuids.slice(1).includes(t.msg_id!))).toBe(false);
    // Responses of tool calls only have no text: no turn. Those with text: one each.
    expect(parsed.turns.filter((t) => t.role === 'assistant')).toHaveLength(4);
    expect(parsed.turns.every((t) => t.content.trim() !== '')).toBe(true);
    expect(new Set(parsed.turns.map((t) => t.msg_id)).size).toBe(parsed.turns.length);
    expect(parsed.turns.map((t) => t.content).join('\n')).not.toMatch(/tool_use_id|<local-command-stdout>|<command-name>|<system-reminder>|SECRET_OLD_BODY/);
    // seq: the turn's JSON line in the file.
    const lines = jsonl(session.text);
    expect(parsed.turns.every((t) => lines[t.seq!]!['uuid'] === t.msg_id)).toBe(true);
  });

  it("skips the client's own compaction summary (kept apart as the client summary) and sub-agent lines", () => {
    const compacted = claudeCodeCompactedSession();
    const parsed = parseClaudeCodeTranscript(compacted.text);
    expect(parsed.turns.some((t) => t.content.startsWith('This session is being continued'))).toBe(false);
    expect(parsed.clientSummary).toBe(COMPACT_SUMMARY);
    // Two turns came before the summary: a save resuming after them still gets it.
    expect(parsed.clientSummaryAt).toBe(2);
    expect(parsed.turns.at(-2)).toMatchObject({ role: 'user', content: compacted.after });
    expect(parseClaudeCodeTranscript(claudeCodeSubagentSession().text).turns).toEqual([]);
  });

  it('reads the older layout (a leading summary line, text and tool calls in one line)', () => {
    const older = parseClaudeCodeTranscript(claudeCodeOlderSession());
    // seq: line 0 is the session's summary line.
    expect(older.turns[0]).toEqual({ role: 'user', content: 'Write a greeting helper', msg_id: 'old-001', seq: 1 });
    expect(older.turns[1]).toMatchObject({ role: 'assistant', content: 'I will write it in greet.py.', msg_id: 'old-002' });
    expect(older.turns.map((t) => t.msg_id)).toEqual(['old-001', 'old-002', 'old-004', 'old-005']);
  });

  it('ignores a torn last line (the client still writing it)', () => {
    const text = claudeCodeDebugSession().text.trimEnd();
    expect(parseClaudeCodeTranscript(text + '\n{"type":"user","uuid":"x","message":{"conte').turns).toEqual(parseClaudeCodeTranscript(text).turns);
  });
});

describe('Codex rollouts', () => {
  it('CAPTURE-04: user and assistant text once each (response items, not the duplicate events), injected context skipped', () => {
    const rollout = codexWorkRollout();
    const parsed = parseCodexTranscript(rollout.text);
    expect(parsed.sessionId).toBe(rollout.sessionId);
    const lines = jsonl(rollout.text);
    expect(parsed.turns[0]).toEqual({ role: 'user', content: CODEX_PROMPT, seq: lines.findIndex((l) => l['type'] === 'response_item' && l['payload'].content?.[0]?.text === CODEX_PROMPT) });
    expect(parsed.turns.map((t) => t.role)).toEqual(['user', 'assistant']);
    expect(parsed.turns[1]!.content).toMatch(/^The chat page now reads LOCAL_MODEL_URL/);
    expect(parsed.turns.some((t) => /<environment_context>/.test(t.content))).toBe(false);
  });
});

describe('Markdown and JSON transcripts', () => {
  it('CLI-INGEST-01: `# user` / `# assistant` sections in order', () => {
    expect(parseMarkdownTranscript('Session notes\n\n# user\nFix the build\n\n# assistant\nDone: the import was wrong.\n\n# User\nThanks\n')).toEqual([
      { role: 'user', content: 'Fix the build' },
      { role: 'assistant', content: 'Done: the import was wrong.' },
      { role: 'user', content: 'Thanks' },
    ]);
  });

  it('CAPTURE-05: a Cursor chat exported by SpecStory (_**User**_ / _**Assistant**_), its steps kept, the separators dropped', () => {
    const turns = parseMarkdownTranscript(specStoryCursorChat());
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(turns[0]).toEqual({ role: 'user', content: CURSOR_FIRST_PROMPT });
    expect(turns[1]!.content).toMatch(/^I will add the rule[\s\S]*<details>[\s\S]*Created `.cursor\/rules\/bug-fix-tests.mdc`/);
    expect(turns.every((t) => !t.content.endsWith('---'))).toBe(true);
  });

  it('CLI-INGEST-02: a JSON array of {role, content}; anything else is a clear error', () => {
    expect(parseJsonTranscript('[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]')).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
    expect(() => parseJsonTranscript('{"role":"user"}')).toThrow(TranscriptFormatError);
    expect(() => parseJsonTranscript('[{"role":"boss","content":"x"}]')).toThrow(/element 0: role must be one of/);
  });

  it('detects the format from the name and the first line', () => {
    expect(detectFormat('a.md', '# user\nx')).toBe('markdown');
    expect(detectFormat('a.json', '[{"role":"user","content":"x"}]')).toBe('json');
    expect(detectFormat('a.jsonl', codexWorkRollout().text)).toBe('codex');
    expect(detectFormat('a.jsonl', claudeCodeDebugSession().text)).toBe('claude-code');
    expect(parseTranscript('a.jsonl', claudeCodeOlderSession()).format).toBe('claude-code');
    expect(detectFormat('a.jsonl', cursorAgentTranscript().text)).toBe('cursor');
  });

  it("CAPTURE-05 [issue 12: Cursor's own transcript]: the JSONL a Cursor hook names: the person's words from <user_query>, assistant text without tool calls, ids stable per line", () => {
    const fixture = cursorAgentTranscript();
    const parsed = parseTranscript('3f1c.jsonl', fixture.text);
    expect(parsed.format).toBe('cursor');
    expect(parsed.turns.map(({ role, content }) => ({ role, content }))).toEqual(fixture.turns);
    const ids = parsed.turns.map((t) => t.msg_id);
    // The same prompt on two lines is two turns; reading the file again gives the same ids.
    expect(new Set(ids).size).toBe(ids.length);
    expect(parseCursorTranscript(fixture.text).turns.map((t) => t.msg_id)).toEqual(ids);
    // Cursor appends: the turns already read keep their ids, and a line still being written is left for the next read.
    const grown = parseCursorTranscript(`${fixture.text}{"role":"assistant","message":{"content":[{"type":"text","text":"Done: the ex`);
    expect(grown.turns.map((t) => t.msg_id)).toEqual(ids);
    const whole = parseCursorTranscript(`${fixture.text}{"role":"assistant","message":{"content":[{"type":"text","text":"Done."}]}}\n`);
    expect(whole.turns.slice(0, ids.length).map((t) => t.msg_id)).toEqual(ids);
    expect(whole.turns.at(-1)).toMatchObject({ role: 'assistant', content: 'Done.' });
  });
});

/** The same readers on real transcripts no one here wrote (../shared/data/transcripts, licences in its README). */
describeRealData('transcripts', () => {
  const read = (name: string) => readFileSync(sharedDataPath('transcripts', name), 'utf8');

  it('CAPTURE-01: a real session: prompts and assistant text, msg_id the entry uuid, split assistant lines merged, tool and progress lines skipped', () => {
    const text = read('claude-code-spotter-short.jsonl');
    const parsed = parseClaudeCodeTranscript(text);
    expect(parsed.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(parsed.turns[0]).toMatchObject({ role: 'user', content: expect.stringContaining('phx.server') });
    const lines = jsonl(text);
    expect(parsed.turns[0]!.msg_id).toBe(lines[3]!['uuid']);
    // Lines 4-9 are one assistant message (one message.id): one turn, its thinking kept as reasoning.
    const assistant = parsed.turns[1]!;
    expect(assistant.role).toBe('assistant');
    expect(assistant.msg_id).toBe(lines[4]!['uuid']);
    expect(assistant.reasoning).toBeTruthy();
    expect(parsed.turns.filter((t) => t.role === 'assistant' && t.msg_id === lines[6]!['uuid'])).toEqual([]);
    expect(parsed.turns.every((t) => t.content.trim() !== '')).toBe(true);
    expect(new Set(parsed.turns.map((t) => t.msg_id)).size).toBe(parsed.turns.length);
    expect(parsed.turns.map((t) => t.content).join('\n')).not.toMatch(/"tool_use_id"|<local-command-stdout>/);
  });

  it("skips the client's own compaction summary and sub-agent lines", () => {
    const parsed = parseClaudeCodeTranscript(read('claude-code-spotter-8463c716-lines690-760-compact.jsonl'));
    expect(parsed.turns.some((t) => t.content.startsWith('This session is being continued'))).toBe(false);
    expect(parseClaudeCodeTranscript(read('claude-code-spotter-8463c716-subagent-acompact-f46190.jsonl')).turns).toEqual([]);
  });

  it('reads older-format lines and the small synthetic fixture', () => {
    const sample = parseClaudeCodeTranscript(read('claude-code-simonw-sample_session.jsonl'));
    // seq: the turn's JSON line in the file (line 0 is the session's summary line).
    expect(sample.turns[0]).toEqual({ role: 'user', content: 'Create a hello world function', msg_id: 'msg-001', seq: 1 });
    expect(sample.turns[1]).toMatchObject({ role: 'assistant', content: "I'll create that function for you.", msg_id: 'msg-002' });
    expect(parseClaudeCodeTranscript(read('claude-code-daaain-representative_messages.jsonl')).turns.length).toBeGreaterThan(0);
  });

  it('CAPTURE-04: Codex rollouts: user and assistant text once each, injected context skipped', () => {
    const parsed = parseCodexTranscript(read('codex-rollout-daaain-synthetic-11111111.jsonl'));
    expect(parsed.sessionId).toBe('11111111-1111-4111-8111-111111111111');
    expect(parsed.turns[0]).toEqual({ role: 'user', content: 'List the synthetic files.', seq: 3 });
    expect(parsed.turns.filter((t) => t.content === 'List the synthetic files.')).toHaveLength(1);
    expect(parsed.turns.some((t) => t.role === 'assistant')).toBe(true);
    const real = parseCodexTranscript(read('codex-rollout-acidicsoil-2025-11-17T15-30-28-019a93b9.jsonl'));
    expect(real.turns.length).toBeGreaterThan(0);
    expect(real.turns.some((t) => /<environment_context>/.test(t.content))).toBe(false);
  });

  it('CAPTURE-05: a real Cursor chat exported by SpecStory (_**User**_ / _**Assistant**_)', () => {
    const turns = parseMarkdownTranscript(read('markdown-specstory-minsky-2025-04-29_17-36-bug-fixing-rule.md'));
    expect(turns[0]).toMatchObject({ role: 'user', content: expect.stringContaining('failing test') });
    expect(turns[1]!.role).toBe('assistant');
    expect(turns.every((t) => !t.content.endsWith('---'))).toBe(true);
  });

  it('detects the format of real files from the name and the first line', () => {
    expect(detectFormat('a.jsonl', read('codex-rollout-daaain-synthetic-11111111.jsonl'))).toBe('codex');
    expect(detectFormat('a.jsonl', read('claude-code-spotter-short.jsonl'))).toBe('claude-code');
    expect(parseTranscript('a.jsonl', read('claude-code-simonw-sample_session.jsonl')).format).toBe('claude-code');
  });
});
