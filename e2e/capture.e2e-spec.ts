import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  claudeCodeCompactedSession,
  claudeCodeDebugSession,
  claudeCodeOlderSession,
  CODEX_PROMPT,
  codexWorkRollout,
  COMPACT_SUMMARY,
  CURSOR_FIRST_PROMPT,
  cursorAgentTranscript,
  describeRealData,
  LEDGER_BRANCH,
  sharedDataPath,
  specStoryCursorChat,
  startTestLoom,
  uniqueNamespace,
  type TestLoom,
} from '../libs/testing/src';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..');
const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const HOOK = join(ROOT, 'integrations', 'claude-code', 'hooks', 'loom-conversation.mjs');

// A hook run starts several `loom` processes; on a loaded machine one test can take minutes.
jest.setTimeout(300_000);

/** The capture clients and `loom ingest-transcript`, as processes, against a running gateway. */
describe('capture clients and loom ingest-transcript', () => {
  let loom: TestLoom;
  let token: string;
  let ns: string;
  const work = mkdtempSync(join(tmpdir(), 'loom-capture-'));
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
    token = (await loom.admin.ok('token.create', { namespace: ns, role: 'writer' })).token;
    env = { ...process.env, LOOM_URL: loom.url, LOOM_TOKEN: token, LOOM_NAMESPACE: ns, LOOM_CLI: `${process.execPath} ${CLI}`, LOOM_CAPTURE_STATE_DIR: join(work, `state-${ns}`), LOOM_LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await loom.close();
    rmSync(work, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env });
  const turns = async (thread: string) =>
    (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: thread, limit: 200 })).messages as Array<{ msg_id: string; role: string; content: string }>;
  const appendCalls = async (): Promise<number> => {
    const text = await (await fetch(`${loom.url}/metrics`)).text();
    return [...text.matchAll(/^loom_op_duration_seconds_count\{[^}]*op="conversation\.append"[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };
  const hook = (input: object, extraEnv: Record<string, string> = {}) => {
    return new Promise<{ stdout: string; stderr: string }>((resolvePromise, reject) => {
      const child = execFile(process.execPath, [HOOK], { env: { ...env, ...extraEnv } }, (error, stdout, stderr) => (error ? reject(error) : resolvePromise({ stdout, stderr })));
      child.stdin!.end(JSON.stringify(input));
    });
  };

  it('CLI-INGEST-01: a Markdown file of # user / # assistant sections is appended turn by turn, in order', async () => {
    const file = join(work, 'session.md');
    writeFileSync(file, '# user\nWhere do invoices live now?\n\n# assistant\nIn ledger_v2, since Tuesday.\n\n# user\nAnd the export job?\n');
    const { stdout } = await cli('ingest-transcript', '--namespace', ns, '--file', file, '--thread-id', 'md');
    expect(stdout).toContain('appended 3 of 3 turn(s) (markdown) to thread md');
    expect((await turns('md')).map((t) => [t.role, t.content])).toEqual([
      ['user', 'Where do invoices live now?'],
      ['assistant', 'In ledger_v2, since Tuesday.'],
      ['user', 'And the export job?'],
    ]);
  });

  it('CLI-INGEST-02: a JSON array of {role, content} is appended element by element', async () => {
    const file = join(work, 'session.json');
    writeFileSync(file, JSON.stringify([{ role: 'user', content: 'ping' }, { role: 'assistant', content: 'pong' }, { role: 'tool', content: '{"ok":true}' }]));
    await cli('ingest-transcript', '--namespace', ns, '--file', file, '--thread-id', 'js');
    expect((await turns('js')).map((t) => t.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('CLI-INGEST-03: --dry-run counts the turns and appends nothing', async () => {
    const file = join(work, 'dry.md');
    writeFileSync(file, '# user\none\n# assistant\ntwo\n');
    const before = await appendCalls();
    const { stdout } = await cli('ingest-transcript', '--namespace', ns, '--file', file, '--thread-id', 'dry', '--dry-run');
    expect(stdout).toContain('would append 2 turn(s) (markdown) to thread dry; nothing was sent');
    expect(await appendCalls()).toBe(before);
    expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'dry' })).status).toBe(404);
  });

  it('CLI-INGEST-04: the same file twice with the same --thread-id does not double the transcript (derived msg_id: duplicate)', async () => {
    const file = join(work, 'twice.md');
    writeFileSync(file, '# user\nfirst\n# assistant\nsecond\n');
    await cli('ingest-transcript', '--namespace', ns, '--file', file, '--thread-id', 'stable');
    const { stdout } = await cli('ingest-transcript', '--namespace', ns, '--file', file, '--thread-id', 'stable', '--json');
    expect(JSON.parse(stdout)).toMatchObject({ appended: 0, duplicates: 2, thread_id: 'stable' });
    expect(await turns('stable')).toHaveLength(2);
  });

  it('CLI-INGEST-05: ingest goes through conversation.append, so a namespace that does not record stores nothing', async () => {
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: false });
    const file = join(work, 'off.md');
    writeFileSync(file, '# user\nnot kept\n# assistant\nnor this\n');
    const { stdout } = await cli('ingest-transcript', '--namespace', ns, '--file', file, '--thread-id', 'off');
    expect(stdout).toMatch(/appended 0 of 2 turn\(s\).*2 not recorded: the namespace does not record conversations/);
    expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'off' })).status).toBe(404);
  });

  it('a bad token or a missing gateway fails with what to do next', async () => {
    const file = join(work, 'x.md');
    writeFileSync(file, '# user\nx\n');
    const bad = await cli('ingest-transcript', '--namespace', ns, '--file', file, '--token', 'loom_nope').catch((e: { stderr: string; code: number }) => e);
    expect((bad as { stderr: string }).stderr).toMatch(/refused the token \(401\); pass a writer token/);
    const down = await cli('ingest-transcript', '--namespace', ns, '--file', file, '--url', 'http://127.0.0.1:9').catch((e: { stderr: string }) => e);
    expect((down as { stderr: string }).stderr).toMatch(/cannot reach Loom at http:\/\/127.0.0.1:9.*loom up/);
  });

  /** A transcript the project writes, as the client would leave it on disk. */
  const transcriptFile = (name: string, text: string): string => {
    const file = join(work, `${name}-${ns}`);
    writeFileSync(file, text);
    return file;
  };
  const jsonl = (text: string) => text.split('\n').filter(Boolean);

  it('CAPTURE-01: the Claude Code Stop hook appends each new turn with msg_id = the entry uuid; running it again adds nothing', async () => {
    const session = claudeCodeDebugSession();
    const transcript = transcriptFile('claude.jsonl', session.text);
    await hook({ session_id: 'cc-1', transcript_path: transcript, hook_event_name: 'Stop' });
    const stored = await turns('cc-1');
    expect(stored.filter((t) => t.role === 'user').map((t) => [t.msg_id, t.content])).toEqual(session.prompts.map((p) => [p.uuid, p.text]));
    expect(stored[1]).toMatchObject({ role: 'assistant', msg_id: session.streamed.uuids[0], content: 'Let me run the export tests and read the job first.' });
    expect(stored).toHaveLength(7);
    const calls = await appendCalls();
    await hook({ session_id: 'cc-1', transcript_path: transcript, hook_event_name: 'Stop' });
    expect(await appendCalls()).toBe(calls);
    expect(await turns('cc-1')).toHaveLength(stored.length);
    // A new turn arrives (the Stop hook fired before it was written): the next run sends only it.
    appendFileSync(transcript, JSON.stringify({ type: 'user', uuid: 'late-uuid', sessionId: 'cc-1', message: { role: 'user', content: 'one more thing' } }) + '\n');
    await hook({ session_id: 'cc-1', transcript_path: transcript, hook_event_name: 'Stop' });
    expect(await appendCalls()).toBe(calls + 1);
    expect((await turns('cc-1')).at(-1)).toMatchObject({ msg_id: 'late-uuid', content: 'one more thing' });
  });

  it('CAPTURE-11, RUNS-02, TRACE-04: the hook makes the session a run and reports its turn usage (on by default), which gives the run its model cost', async () => {
    const session = claudeCodeDebugSession();
    const source = jsonl(session.text);
    // The session so far: up to the middle of its second response (streamed over several lines), then the rest arrives before the next Stop.
    const cut = source.findIndex((l) => l.includes(session.messages[1]!.uuids[1]!)) + 1;
    const transcript = transcriptFile('usage.jsonl', source.slice(0, cut).join('\n') + '\n');
    await hook({ session_id: 'cc-usage', transcript_path: transcript, hook_event_name: 'Stop' });
    const runId = 'claude-code-cc-usage';
    const first = (await loom.admin.ok('run.get', { namespace: ns, run_id: runId })).run;
    expect(first).toMatchObject({ source: 'capture', status: 'running', goal: expect.stringMatching(/^Claude Code session/) });
    expect(first.model_cost.reports).toBe(2);
    expect(first.model_cost.by_model.map((m: { model: string }) => m.model)).toEqual(['claude-opus-4-6']);
    expect(first.model_cost.cost_usd).toBeGreaterThan(0);
    // The second response was cut while streaming: its output so far is the early count.
    expect(first.model_cost.output_tokens).toBe(211 + 10);
    // The recorded turns link to the run.
    expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'cc-usage', run_id: runId, limit: 200 })).messages.length).toBe((await turns('cc-usage')).length);

    appendFileSync(transcript, source.slice(cut).join('\n') + '\n');
    await hook({ session_id: 'cc-usage', transcript_path: transcript, hook_event_name: 'Stop' });
    await hook({ session_id: 'cc-usage', transcript_path: transcript, hook_event_name: 'SessionEnd', reason: 'exit' });
    const { run } = await loom.admin.ok('run.get', { namespace: ns, run_id: runId });
    // Every response once, however many hooks read it: the response split across the two Stops is replaced, not added.
    expect(run.model_cost.reports).toBe(session.messages.length);
    expect(run.model_cost.output_tokens).toBe(211 + 640 + 380 + 48 + 90 + 14);
    expect(run.status).toBe('ended');
    expect(run.model_cost.cost_usd).toBeGreaterThan(first.model_cost.cost_usd);
  });

  it('RUNS-02, CAPTURE-11: with LOOM_CAPTURE_USAGE=false the session is still a run, and the run has no model cost', async () => {
    const transcript = transcriptFile('nousage.jsonl', claudeCodeDebugSession().text);
    await hook({ session_id: 'cc-nousage', transcript_path: transcript, hook_event_name: 'Stop' }, { LOOM_CAPTURE_USAGE: 'false' });
    await hook({ session_id: 'cc-nousage', transcript_path: transcript, hook_event_name: 'SessionEnd' }, { LOOM_CAPTURE_USAGE: 'false' });
    const { run } = await loom.admin.ok('run.get', { namespace: ns, run_id: 'claude-code-cc-nousage' });
    expect(run).toMatchObject({ status: 'ended', model_cost: null });
  });

  it('CAPTURE-11: usage is reported although the namespace does not record conversations (a run is not a transcript)', async () => {
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: false });
    const session = claudeCodeDebugSession();
    await hook({ session_id: 'cc-quiet-usage', transcript_path: transcriptFile('quiet-usage.jsonl', session.text), hook_event_name: 'Stop' });
    expect((await loom.admin.ok('run.get', { namespace: ns, run_id: 'claude-code-cc-quiet-usage' })).run.model_cost.reports).toBe(session.messages.length);
    expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'cc-quiet-usage' })).status).toBe(404);
  });

  it("loom ingest-transcript --target run reports a Codex rollout's usage once, however often it is sent", async () => {
    const rollout = codexWorkRollout();
    const file = transcriptFile('rollout.jsonl', rollout.text);
    const once = JSON.parse((await cli('ingest-transcript', '--namespace', ns, '--file', file, '--target', 'run', '--json')).stdout);
    const twice = JSON.parse((await cli('ingest-transcript', '--namespace', ns, '--file', file, '--target', 'run', '--json')).stdout);
    expect(once).toMatchObject({ target: 'run', began: true, run_id: `codex-${rollout.sessionId}` });
    expect(twice.began).toBe(false);
    expect(twice.model_cost).toEqual(once.model_cost);
    expect(once.model_cost).toMatchObject({ reports: rollout.distinctTotals, output_tokens: rollout.totals.output_tokens });
    expect(once.model_cost.by_model.map((m: { model: string }) => m.model)).toEqual(['gpt-5.1-codex']);
    expect(once.model_cost.cost_usd).toBeGreaterThan(0);
  });

  it("CAPTURE-08: the hook records the session's tool actions as observations at each Stop, and hands them to memory extraction at session end", async () => {
    const session = claudeCodeDebugSession();
    const source = jsonl(session.text);
    const transcript = transcriptFile('tools.jsonl', source.slice(0, 20).join('\n') + '\n');
    await hook({ session_id: 'cc-tools', transcript_path: transcript, hook_event_name: 'Stop' });
    const listed = async () => (await loom.admin.ok('observe.list', { namespace: ns, session_id: 'cc-tools', limit: 200 })).observations as Array<{ obs_id: string; summary: string; outcome: string; crystallized_at: string | null }>;
    const first = await listed();
    // The first 20 lines hold the first response's two calls and the start of the next one's.
    expect(first.map((o) => o.obs_id).sort()).toEqual(session.tools.slice(0, 3).map((t) => t.id).sort());
    expect(first.at(-1)).toMatchObject({ summary: 'Bash: npm test -- export', outcome: 'error' });
    appendFileSync(transcript, source.slice(20).join('\n') + '\n');
    await hook({ session_id: 'cc-tools', transcript_path: transcript, hook_event_name: 'SessionEnd', reason: 'exit' });
    const all = await listed();
    expect(all.map((o) => o.obs_id).sort()).toEqual(session.tools.map((t) => t.id).sort());
    expect(all.every((o) => o.crystallized_at !== null)).toBe(true);
  });

  it('CAPTURE-08: with LOOM_CAPTURE_OBSERVATIONS=false the hook records no tool action', async () => {
    const transcript = transcriptFile('notools.jsonl', claudeCodeDebugSession().text);
    await hook({ session_id: 'cc-notools', transcript_path: transcript, hook_event_name: 'Stop' }, { LOOM_CAPTURE_OBSERVATIONS: 'false' });
    expect((await loom.admin.ok('observe.list', { namespace: ns, session_id: 'cc-notools' })).observations).toEqual([]);
  });

  it('CAPTURE-02, SETTINGS-08: with LOOM_CAPTURE_CONVERSATIONS=false the hook makes no append call', async () => {
    const transcript = transcriptFile('off.jsonl', claudeCodeOlderSession());
    const calls = await appendCalls();
    await hook({ session_id: 'cc-off', transcript_path: transcript }, { LOOM_CAPTURE_CONVERSATIONS: 'false' });
    expect(await appendCalls()).toBe(calls);
  });

  it('CAPTURE-03: the hook caches the namespace\'s "not recording" verdict and skips append calls while it holds', async () => {
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: false });
    const transcript = transcriptFile('quiet.jsonl', claudeCodeOlderSession());
    await hook({ session_id: 'cc-quiet', transcript_path: transcript });
    const calls = await appendCalls();
    appendFileSync(transcript, JSON.stringify({ type: 'user', uuid: 'later', sessionId: 'x', message: { role: 'user', content: 'still not recorded' } }) + '\n');
    await hook({ session_id: 'cc-quiet', transcript_path: transcript });
    expect(await appendCalls()).toBe(calls);
    expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'cc-quiet' })).status).toBe(404);
  });

  it('CAPTURE-04: the same hook captures a Codex rollout (Stop input with the rollout as transcript_path)', async () => {
    await hook({ session_id: 'codex-1', transcript_path: transcriptFile('codex.jsonl', codexWorkRollout().text), turn_id: 't1', model: 'm' });
    const stored = await turns('codex-1');
    expect(stored.map((t) => t.role)).toEqual(['user', 'assistant']);
    expect(stored[0]).toMatchObject({ role: 'user', content: CODEX_PROMPT });
  });

  it("CAPTURE-04 [issue 12: Codex hooks.toml]: the snippet the README appends to ~/.codex/config.toml is Codex's hook schema, and its Stop handler, run as Codex runs it, records the rollout", async () => {
    // Debian's python3 (3.11) reads TOML with its standard library; the Python SDK's tests need it too.
    const read = await run('/usr/bin/python3', ['-c', 'import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))', join(ROOT, 'integrations', 'codex', 'hooks.toml')]);
    type Handler = { type: string; command: string; timeout: number };
    const config = JSON.parse(read.stdout) as { hooks: Record<string, Array<{ hooks: Handler[] }>> };
    expect(Object.keys(config.hooks).sort()).toEqual(['PreCompact', 'Stop']);
    for (const groups of Object.values(config.hooks)) for (const handler of groups.flatMap((g) => g.hooks)) expect(handler).toEqual({ type: 'command', command: expect.stringContaining('/path/to/loom/'), timeout: 120 });
    const command = config.hooks['Stop']![0]!.hooks[0]!.command.replaceAll('/path/to/loom', ROOT);
    const rollout = transcriptFile('codex-toml.jsonl', codexWorkRollout().text);
    // Codex's Stop input (codex-rs/hooks/schema/generated/stop.command.input.schema.json).
    const input = { cwd: work, hook_event_name: 'Stop', last_assistant_message: null, model: 'gpt-5.1-codex', permission_mode: 'default', session_id: 'codex-toml', stop_hook_active: false, transcript_path: rollout, turn_id: 't1' };
    await new Promise<void>((done, fail) => {
      const child = execFile('sh', ['-c', command], { env: { ...env, LOOM_AGENT: 'codex' } }, (error) => (error ? fail(error) : done()));
      child.stdin!.end(JSON.stringify(input));
    });
    const stored = (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'codex-toml', agent: 'codex', limit: 200 })).messages as Array<{ role: string; content: string }>;
    expect(stored.map((t) => t.role)).toEqual(['user', 'assistant']);
    expect(stored[0]).toMatchObject({ content: CODEX_PROMPT });
  });

  it('[issue 12: MCP config] the MCP snippets for Codex and Cursor name /mcp on the gateway with the token in LOOM_TOKEN, and that request initializes an MCP session', async () => {
    const read = await run('/usr/bin/python3', ['-c', 'import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))', join(ROOT, 'integrations', 'codex', 'mcp.toml')]);
    const codex = (JSON.parse(read.stdout) as { mcp_servers: Record<string, { url: string; bearer_token_env_var: string }> }).mcp_servers['loom']!;
    const cursor = (JSON.parse(readFileSync(join(ROOT, 'integrations', 'cursor', 'mcp.json'), 'utf8')) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> }).mcpServers['loom']!;
    expect(codex).toEqual({ url: 'http://127.0.0.1:7777/mcp', bearer_token_env_var: 'LOOM_TOKEN' });
    expect(cursor).toEqual({ url: codex.url, headers: { Authorization: 'Bearer ${env:LOOM_TOKEN}' } });
    // What either client sends, against this gateway: the snippet's path, the header with the variable filled in.
    const url = new URL(new URL(codex.url).pathname, loom.url);
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: cursor.headers['Authorization']!.replace('${env:LOOM_TOKEN}', token) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'readme-check', version: '0' } } }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('"serverInfo"');
  });

  it('CAPTURE-04, CAPTURE-09: with LOOM_CAPTURE_BRIEF_ON_STOP=true a Codex Stop also saves the session brief from its turns and shell commands, and a Stop with nothing new saves nothing', async () => {
    const rollout = transcriptFile('codex-brief.jsonl', codexWorkRollout().text);
    // Codex's Stop input: Claude Code's fields plus turn_id and model.
    await hook({ session_id: 'codex-brief', transcript_path: rollout, hook_event_name: 'Stop', turn_id: 't1', model: 'm' }, { LOOM_CAPTURE_BRIEF_ON_STOP: 'true' });
    const { brief } = await loom.admin.ok('session.brief_get', { namespace: ns, from_session: 'codex-brief' });
    expect(brief).toMatchObject({ revision: 1, author: 'deterministic' });
    expect(brief.sections.goal).toContain('Wire the chat page to the local model server');
    expect(brief.sections.status).toMatch(/Last error: shell: .*\(failed\)/);
    expect((await turns('codex-brief')).length).toBe(2);
    await hook({ session_id: 'codex-brief', transcript_path: rollout, hook_event_name: 'Stop', turn_id: 't2', model: 'm' }, { LOOM_CAPTURE_BRIEF_ON_STOP: 'true' });
    expect((await loom.admin.ok('session.brief_get', { namespace: ns, from_session: 'codex-brief' })).brief.revision).toBe(1);
  });

  it('CAPTURE-07, CONV-REC-10: at session end the hook hands the turns to memory.set_from_messages (deferred) although recording is off', async () => {
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: false });
    const transcript = transcriptFile('end.jsonl', claudeCodeOlderSession());
    await hook({ session_id: 'cc-end', transcript_path: transcript, hook_event_name: 'SessionEnd', reason: 'exit' });
    const recalled = await loom.admin.ok('memory.recall', { namespace: ns, query: 'greeting helper' });
    expect(recalled.hits[0]).toMatchObject({ session_id: 'cc-end', excerpt: expect.stringContaining('greeting helper') });
    // Nothing reached the transcript: the owner's switch still holds there.
    expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'cc-end' })).status).toBe(404);
    // The conversation capture switch does not stop the hand-off to memory; its own switch does.
    const before = (await loom.admin.ok('memory.recall', { namespace: ns, since: new Date(Date.now() - 60_000).toISOString(), limit: 200 })).hits.length;
    await hook({ session_id: 'cc-end-2', transcript_path: transcript, hook_event_name: 'SessionEnd' }, { LOOM_CAPTURE_MEMORY: 'false' });
    expect((await loom.admin.ok('memory.recall', { namespace: ns, since: new Date(Date.now() - 60_000).toISOString(), limit: 200 })).hits.length).toBe(before);
  });

  it("CAPTURE-09: at compaction and session end the hook saves the session brief from the turns and tool actions, condensed by the server (no model on the client), with the client's own compaction summary", async () => {
    const compacted = claudeCodeCompactedSession();
    const transcript = transcriptFile('brief.jsonl', compacted.text);
    await hook({ session_id: 'cc-brief', transcript_path: transcript, hook_event_name: 'PreCompact', trigger: 'auto' });
    // cwd .../invoice-export/web on branch invoice-export: the brief every session of that branch revises.
    const key = `auto/web/${LEDGER_BRANCH}`;
    const { brief } = await loom.admin.ok('session.brief_get', { namespace: ns, brief_key: key, full: true });
    expect(brief).toMatchObject({ revision: 1, author: 'deterministic', session_id: 'cc-brief' });
    expect(brief.sections.status).not.toBe('');
    // The file the session edited, from its tool actions, relative to the project.
    expect(brief.sections.key_files).toContain('static/export.css');
    expect(brief.client_summary).toBe(COMPACT_SUMMARY);
    // Session end with nothing new since: no new revision; new turns: one more.
    await hook({ session_id: 'cc-brief', transcript_path: transcript, hook_event_name: 'SessionEnd' }, { LOOM_CAPTURE_MEMORY: 'false' });
    expect((await loom.admin.ok('session.brief_get', { namespace: ns, brief_key: key })).brief.revision).toBe(1);
    appendFileSync(
      transcript,
      [
        { type: 'user', uuid: 'after-compact', sessionId: 'x', cwd: '/p/web', gitBranch: LEDGER_BRANCH, message: { role: 'user', content: 'now fix the flaky test' } },
        { type: 'assistant', uuid: 'after-compact-answer', sessionId: 'x', message: { id: 'msg_after', role: 'assistant', content: [{ type: 'text', text: 'Fixed: the test now waits for the export to finish.' }] } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    await hook({ session_id: 'cc-brief', transcript_path: transcript, hook_event_name: 'SessionEnd' }, { LOOM_CAPTURE_MEMORY: 'false' });
    const revised = (await loom.admin.ok('session.brief_get', { namespace: ns, brief_key: key })).brief;
    // The goal, set by the first prompt, stays (the model-free builder never rewrites it); the status moves on.
    expect(revised).toMatchObject({ revision: 2, sections: { goal: 'Give the export page the new table style', status: 'Fixed: the test now waits for the export to finish.' } });
  });

  it('CAPTURE-05: the Cursor hook script hands a SpecStory transcript to loom ingest-transcript', async () => {
    const file = join(work, `cursor-${ns}.md`);
    writeFileSync(file, specStoryCursorChat());
    await run(join(ROOT, 'integrations', 'cursor', 'cursor-session-hook.sh'), [file, 'cursor-1'], { env });
    const stored = (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'cursor-1', agent: 'cursor', limit: 200 })).messages;
    expect(stored.map((t: { role: string }) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(stored[0]).toMatchObject({ role: 'user', content: CURSOR_FIRST_PROMPT });
  });

  it("CAPTURE-05 [issue 12: Cursor's stop hook]: hooks.json's command, fed Cursor's stop input on stdin, records Cursor's own transcript under its conversation_id, prints nothing on stdout, and adds nothing the second time", async () => {
    const transcript = join(work, `cursor-agent-${ns}.jsonl`);
    const fixture = cursorAgentTranscript();
    writeFileSync(transcript, fixture.text);
    // The command integrations/cursor/hooks.json installs, with the checkout's path (what the README's sed does).
    const hooks = JSON.parse(readFileSync(join(ROOT, 'integrations', 'cursor', 'hooks.json'), 'utf8')) as { version: number; hooks: { stop: Array<{ command: string }> } };
    expect(hooks.version).toBe(1);
    const command = hooks.hooks.stop[0]!.command.replaceAll('/path/to/loom', ROOT);
    const stop = { conversation_id: 'cursor-conv-1', generation_id: 'gen-1', hook_event_name: 'stop', status: 'completed', workspace_roots: [work], transcript_path: transcript };
    const runStop = () =>
      new Promise<{ stdout: string; stderr: string }>((done, fail) => {
        const child = execFile('sh', ['-c', command], { env }, (error, stdout, stderr) => (error ? fail(error) : done({ stdout, stderr })));
        child.stdin!.end(JSON.stringify(stop));
      });
    const first = await runStop();
    expect(first.stdout).toBe('');
    expect(first.stderr).toContain('(cursor)');
    const stored = (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'cursor-conv-1', agent: 'cursor', limit: 200 })).messages as Array<{ role: string; content: string }>;
    expect(stored.map(({ role, content }) => ({ role, content }))).toEqual(fixture.turns);
    const again = await runStop();
    expect(again.stderr).toContain(`0 of ${fixture.turns.length}`);
    expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'cursor-conv-1', agent: 'cursor', limit: 200 })).messages).toHaveLength(fixture.turns.length);
  });

  it('RUNS-02: loom runs list shows each run with its model cost, newest first, and the total', async () => {
    await loom.admin.ok('run.begin', { namespace: ns, run_id: 'quiet', goal: 'A run that reported nothing' });
    await loom.admin.ok('run.report_usage', { namespace: ns, run_id: 'costly', goal: 'Claude Code session in billing (main)', reports: [{ usage_id: 'm1', model: 'claude-sonnet-4-5', input_tokens: 1_000_000, output_tokens: 100_000 }] });
    const { stdout } = await cli('runs', 'list', '--namespace', ns, '--since', '1h');
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^started\s+status\s+agent\s+cost\s+calls\s+goal$/);
    expect(lines[1]).toMatch(/running\s+default\s+\$4\.50\s+1\s+Claude Code session in billing \(main\)$/);
    expect(lines[2]).toMatch(/running\s+default\s+-\s+-\s+A run that reported nothing$/);
    expect(lines.at(-1)).toBe('2 run(s): $4.50 for 1 model call(s)');
    const json = JSON.parse((await cli('runs', 'list', '--namespace', ns, '--json')).stdout);
    expect(json.runs.map((r: { run_id: string }) => r.run_id)).toEqual(['costly', 'quiet']);
    const bad = await cli('runs', 'list', '--namespace', ns, '--since', 'yesterday').catch((e: { stderr: string }) => e);
    expect((bad as { stderr: string }).stderr).toContain('--since must be an ISO time or a span such as 7d, 24h or 30m');
  });

  it('CAPTURE-10, BRIEF-RESTORE-01: the session-start primer names the saved briefs and never loads their content', async () => {
    await loom.admin.ok('session.brief_save', { namespace: ns, project: 'billing', branch: 'ledger-move', sections: { goal: 'Move invoices to the secret-sauce ledger' } });
    const { stdout } = await hook({ session_id: 'cc-start', hook_event_name: 'SessionStart', source: 'startup' });
    expect(stdout).toContain('auto/billing/ledger-move');
    expect(stdout).toContain('None is loaded');
    expect(stdout).not.toContain('secret-sauce');
    const empty = uniqueNamespace();
    await loom.admin.ok('conversation.set_logging', { namespace: empty, enabled: false });
    expect((await hook({ session_id: 'cc-start', hook_event_name: 'SessionStart' }, { LOOM_NAMESPACE: empty })).stdout).toBe('');
  });

  it('CAPTURE-06: the generic script ingests an exported transcript', async () => {
    const file = join(work, 'generic.json');
    writeFileSync(file, JSON.stringify([{ role: 'user', content: 'generic agent says hi' }]));
    await run(join(ROOT, 'integrations', 'generic', 'ingest.sh'), [file, 'generic-1'], { env });
    expect((await turns('generic-1')).map((t) => t.content)).toEqual(['generic agent says hi']);
  });

  /** The same clients on real transcripts no one here wrote (../shared/data/transcripts). */
  describeRealData('capture clients on real transcripts', () => {
    it('CAPTURE-01: the Claude Code Stop hook appends each new turn with msg_id = the entry uuid; running it again adds nothing', async () => {
      const transcript = join(work, `claude-${ns}.jsonl`);
      copyFileSync(sharedDataPath('transcripts', 'claude-code-spotter-short.jsonl'), transcript);
      const lines = readFileSync(transcript, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      await hook({ session_id: 'cc-1', transcript_path: transcript, hook_event_name: 'Stop' });
      const stored = await turns('cc-1');
      expect(stored.length).toBeGreaterThan(1);
      expect(stored[0]).toMatchObject({ role: 'user', msg_id: lines[3].uuid });
      const calls = await appendCalls();
      await hook({ session_id: 'cc-1', transcript_path: transcript, hook_event_name: 'Stop' });
      expect(await appendCalls()).toBe(calls);
      expect(await turns('cc-1')).toHaveLength(stored.length);
      // A new turn arrives (the Stop hook fired before it was written): the next run sends only it.
      appendFileSync(transcript, JSON.stringify({ type: 'user', uuid: 'late-uuid', sessionId: 'cc-1', message: { role: 'user', content: 'one more thing' } }) + '\n');
      await hook({ session_id: 'cc-1', transcript_path: transcript, hook_event_name: 'Stop' });
      expect(await appendCalls()).toBe(calls + 1);
      expect((await turns('cc-1')).at(-1)).toMatchObject({ msg_id: 'late-uuid', content: 'one more thing' });
    });

    it('CAPTURE-11, RUNS-02, TRACE-04: the hook makes the session a run and reports its turn usage (on by default), which gives the run its model cost', async () => {
      const transcript = join(work, `usage-${ns}.jsonl`);
      const source = readFileSync(sharedDataPath('transcripts', 'claude-code-spotter-8463c716-head200.jsonl'), 'utf8').split('\n').filter(Boolean);
      // The session so far: its first 100 lines, then the rest arrives before the next Stop.
      writeFileSync(transcript, source.slice(0, 100).join('\n') + '\n');
      const responses = (lines: string[]) => new Set(lines.map((l) => JSON.parse(l)).filter((l) => l.type === 'assistant' && l.message?.usage).map((l) => l.message.id)).size;
      await hook({ session_id: 'cc-usage', transcript_path: transcript, hook_event_name: 'Stop' });
      const runId = 'claude-code-cc-usage';
      const first = (await loom.admin.ok('run.get', { namespace: ns, run_id: runId })).run;
      expect(first).toMatchObject({ source: 'capture', status: 'running', goal: expect.stringMatching(/^Claude Code session/) });
      expect(first.model_cost.reports).toBe(responses(source.slice(0, 100)));
      expect(first.model_cost.by_model.map((m: { model: string }) => m.model)).toEqual(['claude-opus-4-6']);
      expect(first.model_cost.cost_usd).toBeGreaterThan(0);
      // The recorded turns link to the run.
      expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'cc-usage', run_id: runId, limit: 200 })).messages.length).toBe((await turns('cc-usage')).length);

      appendFileSync(transcript, source.slice(100).join('\n') + '\n');
      await hook({ session_id: 'cc-usage', transcript_path: transcript, hook_event_name: 'Stop' });
      await hook({ session_id: 'cc-usage', transcript_path: transcript, hook_event_name: 'SessionEnd', reason: 'exit' });
      const { run } = await loom.admin.ok('run.get', { namespace: ns, run_id: runId });
      // Every response once, however many hooks read it: a response split across the two Stops is replaced, not added.
      expect(run.model_cost.reports).toBe(responses(source));
      const expected = source
        .map((l) => JSON.parse(l))
        .filter((l) => l.type === 'assistant' && l.message?.usage)
        .reduce((byId, l) => byId.set(l.message.id, Math.max(byId.get(l.message.id) ?? 0, l.message.usage.output_tokens)), new Map<string, number>());
      expect(run.model_cost.output_tokens).toBe([...expected.values()].reduce((a, b) => a + b, 0));
      expect(run.status).toBe('ended');
      expect(run.model_cost.cost_usd).toBeGreaterThan(first.model_cost.cost_usd);
    });

    it('RUNS-02, CAPTURE-11: with LOOM_CAPTURE_USAGE=false the session is still a run, and the run has no model cost', async () => {
      const transcript = join(work, `nousage-${ns}.jsonl`);
      copyFileSync(sharedDataPath('transcripts', 'claude-code-spotter-tool_heavy.jsonl'), transcript);
      await hook({ session_id: 'cc-nousage', transcript_path: transcript, hook_event_name: 'Stop' }, { LOOM_CAPTURE_USAGE: 'false' });
      await hook({ session_id: 'cc-nousage', transcript_path: transcript, hook_event_name: 'SessionEnd' }, { LOOM_CAPTURE_USAGE: 'false' });
      const { run } = await loom.admin.ok('run.get', { namespace: ns, run_id: 'claude-code-cc-nousage' });
      expect(run).toMatchObject({ status: 'ended', model_cost: null });
    });

    it('CAPTURE-11: usage is reported although the namespace does not record conversations (a run is not a transcript)', async () => {
      await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: false });
      const transcript = join(work, `quiet-usage-${ns}.jsonl`);
      copyFileSync(sharedDataPath('transcripts', 'claude-code-spotter-short.jsonl'), transcript);
      await hook({ session_id: 'cc-quiet-usage', transcript_path: transcript, hook_event_name: 'Stop' });
      expect((await loom.admin.ok('run.get', { namespace: ns, run_id: 'claude-code-cc-quiet-usage' })).run.model_cost.reports).toBe(1);
      expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'cc-quiet-usage' })).status).toBe(404);
    });

    it('loom ingest-transcript --target run reports a Codex rollout\'s usage once, however often it is sent', async () => {
      const file = sharedDataPath('transcripts', 'codex-rollout-acidicsoil-2025-11-17T15-30-28-019a93b9.jsonl');
      const once = JSON.parse((await cli('ingest-transcript', '--namespace', ns, '--file', file, '--target', 'run', '--json')).stdout);
      const twice = JSON.parse((await cli('ingest-transcript', '--namespace', ns, '--file', file, '--target', 'run', '--json')).stdout);
      expect(once).toMatchObject({ target: 'run', began: true, run_id: expect.stringMatching(/^codex-/) });
      expect(twice.began).toBe(false);
      expect(twice.model_cost).toEqual(once.model_cost);
      expect(once.model_cost.by_model.map((m: { model: string }) => m.model)).toEqual(['gpt-5.1-codex']);
      expect(once.model_cost.cost_usd).toBeGreaterThan(0);
    });

    it('CAPTURE-08: the hook records the session\'s tool actions as observations at each Stop, and hands them to memory extraction at session end', async () => {
      const transcript = join(work, `tools-${ns}.jsonl`);
      const source = readFileSync(sharedDataPath('transcripts', 'claude-code-spotter-tool_heavy.jsonl'), 'utf8').split('\n').filter(Boolean);
      writeFileSync(transcript, source.slice(0, 20).join('\n') + '\n');
      await hook({ session_id: 'cc-tools', transcript_path: transcript, hook_event_name: 'Stop' });
      const listed = async () => (await loom.admin.ok('observe.list', { namespace: ns, session_id: 'cc-tools', limit: 200 })).observations as Array<{ obs_id: string; summary: string; outcome: string; crystallized_at: string | null }>;
      const first = await listed();
      expect(first.length).toBeGreaterThan(0);
      expect(first.at(-1)).toMatchObject({ summary: 'Bash: mix phx.server', outcome: 'ok' });
      appendFileSync(transcript, source.slice(20).join('\n') + '\n');
      await hook({ session_id: 'cc-tools', transcript_path: transcript, hook_event_name: 'SessionEnd', reason: 'exit' });
      const all = await listed();
      const uses = source.flatMap((l) => (JSON.parse(l).message?.content ?? [])).filter((b: { type?: string }) => b?.type === 'tool_use');
      expect(all.map((o) => o.obs_id).sort()).toEqual(uses.map((u: { id: string }) => u.id).sort());
      expect(all.every((o) => o.crystallized_at !== null)).toBe(true);
    });

    it('CAPTURE-08: with LOOM_CAPTURE_OBSERVATIONS=false the hook records no tool action', async () => {
      const transcript = join(work, `notools-${ns}.jsonl`);
      copyFileSync(sharedDataPath('transcripts', 'claude-code-spotter-tool_heavy.jsonl'), transcript);
      await hook({ session_id: 'cc-notools', transcript_path: transcript, hook_event_name: 'Stop' }, { LOOM_CAPTURE_OBSERVATIONS: 'false' });
      expect((await loom.admin.ok('observe.list', { namespace: ns, session_id: 'cc-notools' })).observations).toEqual([]);
    });

    it('CAPTURE-02, SETTINGS-08: with LOOM_CAPTURE_CONVERSATIONS=false the hook makes no append call', async () => {
      const transcript = join(work, `off-${ns}.jsonl`);
      copyFileSync(sharedDataPath('transcripts', 'claude-code-simonw-sample_session.jsonl'), transcript);
      const calls = await appendCalls();
      await hook({ session_id: 'cc-off', transcript_path: transcript }, { LOOM_CAPTURE_CONVERSATIONS: 'false' });
      expect(await appendCalls()).toBe(calls);
    });

    it('CAPTURE-03: the hook caches the namespace\'s "not recording" verdict and skips append calls while it holds', async () => {
      await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: false });
      const transcript = join(work, `quiet-${ns}.jsonl`);
      copyFileSync(sharedDataPath('transcripts', 'claude-code-simonw-sample_session.jsonl'), transcript);
      await hook({ session_id: 'cc-quiet', transcript_path: transcript });
      const calls = await appendCalls();
      appendFileSync(transcript, JSON.stringify({ type: 'user', uuid: 'later', sessionId: 'x', message: { role: 'user', content: 'still not recorded' } }) + '\n');
      await hook({ session_id: 'cc-quiet', transcript_path: transcript });
      expect(await appendCalls()).toBe(calls);
      expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'cc-quiet' })).status).toBe(404);
    });

    it('CAPTURE-04: the same hook captures a Codex rollout (Stop input with the rollout as transcript_path)', async () => {
      await hook({ session_id: 'codex-1', transcript_path: sharedDataPath('transcripts', 'codex-rollout-daaain-synthetic-11111111.jsonl'), turn_id: 't1', model: 'm' });
      const stored = await turns('codex-1');
      expect(stored[0]).toMatchObject({ role: 'user', content: 'List the synthetic files.' });
      expect(stored.filter((t) => t.content === 'List the synthetic files.')).toHaveLength(1);
    });

    it('CAPTURE-04, CAPTURE-09: with LOOM_CAPTURE_BRIEF_ON_STOP=true a Codex Stop also saves the session brief from its turns and shell commands, and a Stop with nothing new saves nothing', async () => {
      const rollout = sharedDataPath('transcripts', 'codex-rollout-acidicsoil-2025-11-17T15-30-28-019a93b9.jsonl');
      // Codex's Stop input (codex-hook-input-schemas.json): Claude Code's fields plus turn_id and model.
      await hook({ session_id: 'codex-brief', transcript_path: rollout, hook_event_name: 'Stop', turn_id: 't1', model: 'm' }, { LOOM_CAPTURE_BRIEF_ON_STOP: 'true' });
      const { brief } = await loom.admin.ok('session.brief_get', { namespace: ns, from_session: 'codex-brief' });
      expect(brief).toMatchObject({ revision: 1, author: 'deterministic' });
      expect(brief.sections.goal).not.toBe('');
      expect(brief.sections.status).toMatch(/Last error: shell: .*\(failed\)/);
      expect((await turns('codex-brief')).length).toBeGreaterThan(0);
      await hook({ session_id: 'codex-brief', transcript_path: rollout, hook_event_name: 'Stop', turn_id: 't2', model: 'm' }, { LOOM_CAPTURE_BRIEF_ON_STOP: 'true' });
      expect((await loom.admin.ok('session.brief_get', { namespace: ns, from_session: 'codex-brief' })).brief.revision).toBe(1);
    });

    it('CAPTURE-07, CONV-REC-10: at session end the hook hands the turns to memory.set_from_messages (deferred) although recording is off', async () => {
      await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: false });
      const transcript = join(work, `end-${ns}.jsonl`);
      copyFileSync(sharedDataPath('transcripts', 'claude-code-simonw-sample_session.jsonl'), transcript);
      await hook({ session_id: 'cc-end', transcript_path: transcript, hook_event_name: 'SessionEnd', reason: 'exit' });
      const recalled = await loom.admin.ok('memory.recall', { namespace: ns, query: 'hello world function' });
      expect(recalled.hits[0]).toMatchObject({ session_id: 'cc-end', excerpt: expect.stringContaining('hello world') });
      // Nothing reached the transcript: the owner's switch still holds there.
      expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'cc-end' })).status).toBe(404);
      // The conversation capture switch does not stop the hand-off to memory; its own switch does.
      const before = (await loom.admin.ok('memory.recall', { namespace: ns, since: new Date(Date.now() - 60_000).toISOString(), limit: 200 })).hits.length;
      await hook({ session_id: 'cc-end-2', transcript_path: transcript, hook_event_name: 'SessionEnd' }, { LOOM_CAPTURE_MEMORY: 'false' });
      expect((await loom.admin.ok('memory.recall', { namespace: ns, since: new Date(Date.now() - 60_000).toISOString(), limit: 200 })).hits.length).toBe(before);
    });

    it('CAPTURE-09: at compaction and session end the hook saves the session brief from the turns and tool actions, condensed by the server (no model on the client), with the client\'s own compaction summary', async () => {
      const transcript = join(work, `brief-${ns}.jsonl`);
      copyFileSync(sharedDataPath('transcripts', 'claude-code-spotter-8463c716-lines690-760-compact.jsonl'), transcript);
      await hook({ session_id: 'cc-brief', transcript_path: transcript, hook_event_name: 'PreCompact', trigger: 'auto' });
      // cwd .../spotter-fum/assets on branch spotter-fum: the brief every session of that branch revises.
      const { brief } = await loom.admin.ok('session.brief_get', { namespace: ns, brief_key: 'auto/assets/spotter-fum', full: true });
      expect(brief).toMatchObject({ revision: 1, author: 'deterministic', session_id: 'cc-brief' });
      expect(brief.sections.status).not.toBe('');
      // The file the session edited, from its tool actions (the turns never name it).
      expect(brief.sections.key_files.some((f: string) => f.endsWith('priv/static/assets/spotter.css'))).toBe(true);
      expect(brief.client_summary).toMatch(/^This session is being continued from a previous conversation/);
      // Session end with nothing new since: no new revision; new turns: one more.
      await hook({ session_id: 'cc-brief', transcript_path: transcript, hook_event_name: 'SessionEnd' }, { LOOM_CAPTURE_MEMORY: 'false' });
      expect((await loom.admin.ok('session.brief_get', { namespace: ns, brief_key: 'auto/assets/spotter-fum' })).brief.revision).toBe(1);
      appendFileSync(transcript, JSON.stringify({ type: 'user', uuid: 'after-compact', sessionId: 'x', cwd: '/p/assets', gitBranch: 'spotter-fum', message: { role: 'user', content: 'now fix the flaky test' } }) + '\n');
      await hook({ session_id: 'cc-brief', transcript_path: transcript, hook_event_name: 'SessionEnd' }, { LOOM_CAPTURE_MEMORY: 'false' });
      const revised = (await loom.admin.ok('session.brief_get', { namespace: ns, brief_key: 'auto/assets/spotter-fum' })).brief;
      expect(revised).toMatchObject({ revision: 2, sections: { goal: 'now fix the flaky test' } });
    });

    it('CAPTURE-05: the Cursor hook script hands a SpecStory transcript to loom ingest-transcript', async () => {
      const file = sharedDataPath('transcripts', 'markdown-specstory-minsky-2025-04-29_17-36-bug-fixing-rule.md');
      await run(join(ROOT, 'integrations', 'cursor', 'cursor-session-hook.sh'), [file, 'cursor-1'], { env });
      const stored = (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'cursor-1', agent: 'cursor', limit: 200 })).messages;
      expect(stored[0]).toMatchObject({ role: 'user', content: expect.stringContaining('failing test') });
    });
  });
});
