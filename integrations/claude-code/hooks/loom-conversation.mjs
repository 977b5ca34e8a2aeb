#!/usr/bin/env node
// Loom's capture hook for Claude Code and Codex.
// - Stop: appends the session's new turns to Loom through `loom ingest-transcript`, with
//   msg_id = the transcript entry's uuid, so a second run over the same transcript adds nothing.
// - PreCompact and SessionEnd: saves the session brief from the turns and tool actions
//   (session.brief_save; the server condenses them, the client spends no model tokens).
// - SessionEnd: also hands the session's turns to memory.set_from_messages (deferred), whether or
//   not the namespace records transcripts: facts are extracted either way.
// - SessionStart: names the namespace's saved briefs for the model, and never loads one; the
//   person asks for a brief by name (the loom-session skill).
// - Stop, PreCompact and SessionEnd: the session is a run (begun when new, id
//   <format>-<session id>), and the model usage of each new API response in the transcript is
//   reported to it (run.report_usage), which gives the run its model cost. SessionEnd marks the
//   run `ended`. Recorded turns carry the run's id.
// - Stop, PreCompact and SessionEnd: the session's new tool actions are recorded as episodic
//   observations (observe.record: the tool and what it was asked to do, never its output), and
//   SessionEnd hands them to memory extraction (observe.crystallize) unless LOOM_CAPTURE_MEMORY=false.
//
// Environment:
//   LOOM_CAPTURE_CONVERSATIONS=false   turn transcript capture off (no append calls)
//   LOOM_CAPTURE_MEMORY=false          turn the session-end hand-off to memory off
//   LOOM_CAPTURE_BRIEFS=false          turn the brief saves and the session-start primer off
//   LOOM_CAPTURE_BRIEF_ON_STOP=true    also save the brief at every Stop, for clients that send
//                                      no PreCompact or SessionEnd (Codex); each save sends only
//                                      what is new since the last one
//   LOOM_CAPTURE_USAGE=false           report no turn usage: the session's run has no model cost
//   LOOM_CAPTURE_OBSERVATIONS=false    record no tool actions
//   LOOM_NAMESPACE                     namespace to record into (default "default")
//   LOOM_URL, LOOM_TOKEN               the gateway and a writer token
//   LOOM_CLI                           how to run the loom command (default "loom")
//   LOOM_AGENT                         agent name to record as (default "default")
//   LOOM_CAPTURE_STATE_DIR             where per-session state lives (default ~/.loom/capture)
//   LOOM_CAPTURE_VERDICT_TTL_SECONDS   how long a "recording is off" answer is trusted (300)
//
// A hook must never break the session: every failure is reported on stderr and exits 0.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const env = process.env;

async function main() {
  const input = JSON.parse(await readStdin() || '{}');
  const event = input.hook_event_name;
  const [command, ...prefix] = (env.LOOM_CLI ?? 'loom').split(' ').filter(Boolean);
  const namespace = env.LOOM_NAMESPACE ?? 'default';
  const briefsOn = (env.LOOM_CAPTURE_BRIEFS ?? '').toLowerCase() !== 'false';
  if (event === 'SessionStart') {
    if (briefsOn) await primer(command, prefix, namespace);
    return;
  }
  const sessionId = input.session_id;
  const transcript = input.transcript_path;
  if (!sessionId || !transcript) return;

  const common = ['--namespace', namespace, '--file', transcript, '--thread-id', sessionId, '--json'];
  const stateDir = env.LOOM_CAPTURE_STATE_DIR ?? join(homedir(), '.loom', 'capture');
  const statePath = join(stateDir, `${sessionId.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`);
  let state = readState(statePath);
  state = await sessionRun(command, prefix, common, state, event === 'SessionEnd');
  state = await sessionObservations(command, prefix, common, state, event === 'SessionEnd');
  writeState(stateDir, statePath, state);
  const briefOnStop = (env.LOOM_CAPTURE_BRIEF_ON_STOP ?? '').toLowerCase() === 'true';
  if (briefsOn && (event === 'PreCompact' || event === 'SessionEnd' || (event === 'Stop' && briefOnStop))) {
    // Only the turns and tool actions since the last brief save: the brief is revised, not rebuilt.
    const args = [...prefix, 'ingest-transcript', ...common, '--target', 'brief', ...(state.brief_msg_id ? ['--after-msg-id', state.brief_msg_id] : [])];
    try {
      const saved = JSON.parse((await run(command, args)).trim().split('\n').pop());
      state = { ...state, brief_msg_id: saved.last_msg_id ?? state.brief_msg_id ?? null };
      writeState(stateDir, statePath, state);
    } catch (error) {
      // The transcript capture below does not wait on the brief.
      process.stderr.write(`loom capture: the brief save failed: ${error.message}\n`);
    }
  }
  if (event === 'PreCompact' || event === 'SessionEnd') {
    if (event === 'SessionEnd' && (env.LOOM_CAPTURE_MEMORY ?? '').toLowerCase() !== 'false') await run(command, [...prefix, 'ingest-transcript', ...common, '--target', 'memory']);
    return;
  }
  if ((env.LOOM_CAPTURE_CONVERSATIONS ?? '').toLowerCase() === 'false') return;

  // The namespace does not record: skip the calls until the verdict is stale.
  if (state.recording_off_until && state.recording_off_until > Date.now()) return;

  const args = [
    ...prefix,
    'ingest-transcript',
    ...common,
    ...(env.LOOM_AGENT ? ['--agent', env.LOOM_AGENT] : []),
    ...(state.run_id ? ['--run-id', state.run_id] : []),
    ...(state.last_msg_id ? ['--after-msg-id', state.last_msg_id] : []),
  ];
  const stdout = await run(command, args);
  const report = JSON.parse(stdout.trim().split('\n').pop());
  const ttl = Number(env.LOOM_CAPTURE_VERDICT_TTL_SECONDS ?? 300) * 1000;
  writeState(stateDir, statePath, {
    ...state,
    last_msg_id: report.last_msg_id ?? state.last_msg_id ?? null,
    recording_off_until: report.not_recorded > 0 && report.appended === 0 ? Date.now() + ttl : 0,
  });
}

/**
 * The session's run: begun when new, sent the usage reports since the last one sent (unless
 * LOOM_CAPTURE_USAGE=false), ended at session end. A failure here is reported and the hook goes
 * on: the transcript capture does not wait on the run.
 */
async function sessionRun(command, prefix, common, state, end) {
  const usage = (env.LOOM_CAPTURE_USAGE ?? '').toLowerCase() !== 'false';
  if (!usage && state.run_id && !end) return state;
  const args = [
    ...prefix,
    'ingest-transcript',
    ...common,
    '--target',
    'run',
    ...(env.LOOM_AGENT ? ['--agent', env.LOOM_AGENT] : []),
    ...(usage ? [] : ['--no-usage']),
    ...(state.usage_id ? ['--since-usage-id', state.usage_id] : []),
    ...(end ? ['--end'] : []),
  ];
  try {
    const report = JSON.parse((await run(command, args)).trim().split('\n').pop());
    return { ...state, run_id: report.run_id, usage_id: report.last_usage_id ?? state.usage_id ?? null };
  } catch (error) {
    process.stderr.write(`loom capture: the session's run was not updated: ${error.message}\n`);
    return state;
  }
}

/** The session's tool actions since the last ones sent; at session end, handed to extraction too. A failure is reported and the hook goes on. */
async function sessionObservations(command, prefix, common, state, end) {
  if ((env.LOOM_CAPTURE_OBSERVATIONS ?? '').toLowerCase() === 'false') return state;
  const args = [
    ...prefix,
    'ingest-transcript',
    ...common,
    '--target',
    'observations',
    ...(env.LOOM_AGENT ? ['--agent', env.LOOM_AGENT] : []),
    ...(state.obs_id ? ['--since-obs-id', state.obs_id] : []),
    // Crystallizing is a hand-off to memory: LOOM_CAPTURE_MEMORY=false stops it with the other.
    ...(end && (env.LOOM_CAPTURE_MEMORY ?? '').toLowerCase() !== 'false' ? ['--crystallize'] : []),
  ];
  try {
    const report = JSON.parse((await run(command, args)).trim().split('\n').pop());
    return { ...state, obs_id: report.last_obs_id ?? state.obs_id ?? null };
  } catch (error) {
    process.stderr.write(`loom capture: the session's tool actions were not recorded: ${error.message}\n`);
    return state;
  }
}

/** Names the saved briefs (their keys and dates), never their content: loading one is the person's choice. */
async function primer(command, prefix, namespace) {
  const { briefs } = JSON.parse(await run(command, [...prefix, 'briefs', 'list', '--namespace', namespace, '--json']));
  if (briefs.length === 0) return;
  const names = briefs.map((b) => `- ${b.brief_key} (saved ${b.updated_at.slice(0, 16).replace('T', ' ')})`).join('\n');
  process.stdout.write(
    `Loom has ${briefs.length} saved session brief(s) in namespace "${namespace}". None is loaded. ` +
      `If the person asks to resume one of these lines of work, load it by name with the loom-session skill:\n${names}\n`,
  );
}

function readStdin() {
  return new Promise((resolve, reject) => {
    let data = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => (data += chunk));
    process.stdin.on('end', () => resolve(data));
    process.stdin.on('error', reject);
  });
}

function readState(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

function writeState(dir, path, state) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${path}.tmp`, JSON.stringify(state));
  renameSync(`${path}.tmp`, path);
}

function run(command, args) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`loom ${args.find((a) => a === 'ingest-transcript' || a === 'briefs') ?? ''} failed: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

main().catch((error) => {
  process.stderr.write(`loom capture: ${error.message}\n`);
});
