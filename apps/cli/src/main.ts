import 'reflect-metadata';
import { Command } from 'commander';
import { ConfigError } from '@loom/platform';
import { upCommand } from './commands/up.command';
import { migrateCommand } from './commands/migrate.command';
import { tokenCreateCommand, tokenListCommand, tokenRevokeCommand } from './commands/token.command';
import { trackerDuplicateCheckCommand, trackerFlakyCommand, trackerIncidentsCommand, trackerLinksCommand, trackerRegisterCommand, trackerStatusCommand } from './commands/tracker.command';
import { reembedCommand } from './commands/reembed.command';
import { ingestTranscriptCommand } from './commands/ingest-transcript.command';
import { briefsGetCommand, briefsListCommand } from './commands/briefs.command';
import { runsListCommand } from './commands/runs.command';
import { searchCommand } from './commands/search.command';
import { codeAddCommand, codeGithubCommand, codeListCommand, historyCommand } from './commands/code.command';
import { loomVersion } from './version';
import { erasureExportCommand, erasureRequestCommand, erasureStatusCommand } from './commands/erasure.command';
import { quarantineDropCommand, quarantineListCommand, quarantineRetryCommand } from './commands/quarantine.command';

const program = new Command('loom').description('Loom: a memory of coding-agent sessions').version(loomVersion(), '-V, --version', 'print the version').showHelpAfterError();

program
  .command('up')
  .description('start Loom in one process: embedded ClickHouse (chDB), in-process transport, gateway')
  .option('--port <port>', 'HTTP port of the gateway (overrides LOOM_PORT; 0 picks a free one)')
  .option('--data-dir <dir>', 'where the embedded engine keeps its data and the admin token (overrides LOOM_DATA_DIR)')
  .action(upCommand);
program.command('migrate').description('apply pending schema migrations to the configured ClickHouse').action(migrateCommand);

program
  .command('reembed')
  .description("give stored turns vectors of the configured embedding model (after a provider switch), from each embedding row's stored text")
  .option('--namespace <ns>', 'only this namespace (default: every namespace)')
  .option('--all', 'also re-embed turns that already have a vector of the current model')
  .action(reembedCommand);

program
  .command('ingest-transcript')
  .description('append a transcript file to a thread: Markdown (# user / # assistant), a JSON array of {role, content}, a Claude Code session or a Codex rollout')
  .requiredOption('--namespace <ns>', 'the namespace to record into')
  .requiredOption('--file <path>', 'the transcript file')
  .option('--format <format>', 'auto | markdown | json | claude-code | codex | cursor', 'auto')
  .option('--thread-id <id>', 'a stable thread id: ingesting the same file again then adds nothing (default: the session id, else a new thread)')
  .option('--dry-run', 'count the turns that would be appended and send nothing')
  .option('--after-msg-id <id>', 'skip the turns up to and including this msg_id (what a capture hook already sent); for --target brief, the last entry of the previous save, a turn or a tool action')
  .option('--agent <agent>', 'the agent the turns are recorded as (default "default")')
  .option('--user-id <id>', "the user whose prompts these are (set on user turns)")
  .option('--url <url>', 'the gateway (default $LOOM_URL, else http://127.0.0.1:$LOOM_PORT)')
  .option('--token <token>', 'a writer token (default $LOOM_TOKEN, else the local admin token)')
  .option('--json', 'print the outcome as one JSON line')
  .option(
    '--target <target>',
    'transcript (conversation.append, the default) | memory (memory.set_from_messages, deferred, whether or not the namespace records) | brief (session.brief_save from the turns; the server condenses them) | run (the session as a run: begun when new, with the model usage the transcript reports) | observations (the tool actions of the session, through observe.record)',
    'transcript',
  )
  .option('--run-id <id>', 'the run: turns are linked to it (transcript), or it is the run reported (run; default <format>-<session id>)')
  .option('--goal <text>', "run: the goal a new run is begun with (default: a label naming the client, project and branch, never the session's text)")
  .option('--no-usage', 'run: begin the run but report no model usage')
  .option('--since-usage-id <id>', 'run: send only the usage reports from this id on; the report of this id is sent again, as its response may have grown since (what a capture hook last sent)')
  .option('--end', "run: mark the run ended (the session finished with no verdict); a run already completed is left as it is")
  .option('--since-obs-id <id>', 'observations: send only the tool actions from this id on (what a capture hook last sent; it is sent again)')
  .option('--crystallize', "observations: then hand the session's new observations to memory extraction (observe.crystallize, deferred)")
  .action(ingestTranscriptCommand);

const briefs = program.command('briefs').description('session briefs');
briefs
  .command('list')
  .description('the namespace\'s saved briefs, by name (never their content)')
  .requiredOption('--namespace <ns>', 'the namespace')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'a viewer token (default $LOOM_TOKEN)')
  .option('--json', 'print JSON')
  .action(briefsListCommand);
briefs
  .command('get <key>')
  .description('load one brief, rendered')
  .requiredOption('--namespace <ns>', 'the namespace')
  .option('--full', "also the client's own last compaction summary")
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'a viewer token (default $LOOM_TOKEN)')
  .action(briefsGetCommand);

const quarantine = program.command('quarantine').description('rows storage refused on their own (poison rows), set aside so the rest were stored (admin of every namespace)');
quarantine
  .command('list')
  .description('quarantined rows, oldest first: id, table, key and the engine\'s error')
  .option('--limit <n>', 'at most this many (1-1000, default 100)')
  .option('--rows', 'also print each row as JSON (it holds the turn\'s text)')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'an admin token for every namespace (default $LOOM_TOKEN)')
  .option('--json', 'print JSON')
  .action(quarantineListCommand);
quarantine
  .command('retry <ids...>')
  .description('insert each row again; a row storage takes now is stored and leaves the quarantine')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'an admin token for every namespace (default $LOOM_TOKEN)')
  .option('--json', 'print JSON')
  .action(quarantineRetryCommand);
quarantine
  .command('drop <ids...>')
  .description('remove each row from the quarantine without storing it')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'an admin token for every namespace (default $LOOM_TOKEN)')
  .option('--json', 'print JSON')
  .action(quarantineDropCommand);

const erasure = program.command('erasure').description("a person's or a namespace's data: erase it, check on an erasure, export it (admin)");
erasure
  .command('request')
  .description("erase a person's data in every namespace the token covers (--user-id), or whole namespaces (--namespaces)")
  .requiredOption('--namespace <ns>', 'the namespace the request is made in (its status is read there)')
  .option('--user-id <id>', 'the person')
  .option('--namespaces <list>', 'whole namespaces, comma-separated')
  .option('--purge', 'with --namespaces: remove the rows from disk instead of tombstoning them')
  .option('--no-wait', 'answer once the request is stored; it finishes in the background')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'an admin token (default $LOOM_TOKEN)')
  .option('--json', 'print JSON')
  .action(erasureRequestCommand);
erasure
  .command('status <erasure_id>')
  .description('where an erasure stands')
  .requiredOption('--namespace <ns>', 'the namespace the request was made in')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'an admin token (default $LOOM_TOKEN)')
  .option('--json', 'print JSON')
  .action(erasureStatusCommand);
erasure
  .command('export')
  .description("a person's turns (--user-id) or a namespace's, tombstoned ones included, as JSON lines; progress on stderr")
  .requiredOption('--namespace <ns>', 'the namespace (with --user-id: every namespace the token covers)')
  .option('--user-id <id>', 'the person')
  .option('--live-only', 'leave tombstoned turns out')
  .option('--out <file>', 'write to this file (mode 600) instead of stdout')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'an admin token (default $LOOM_TOKEN)')
  .action(erasureExportCommand);

const runs = program.command('runs').description('agent runs and what their model calls cost');
runs
  .command('list')
  .description('the namespace\'s runs, newest first, with their model cost and the total')
  .requiredOption('--namespace <ns>', 'the namespace')
  .option('--agent <agent>', 'one agent\'s runs (default: every agent)')
  .option('--status <status>', 'running | succeeded | failed | abandoned | ended | idle_closed')
  .option('--since <when>', 'runs begun since an ISO time or a span back from now (7d, 24h, 30m)')
  .option('--limit <n>', 'most runs (default 20, at most 200)')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'a viewer token (default $LOOM_TOKEN)')
  .option('--json', 'print JSON')
  .action(runsListCommand);

program
  .command('search <query>')
  .description('search recorded conversation turns (conversation.search): by meaning and words (hybrid, the default), meaning alone (vector) or words alone (lexical)')
  .requiredOption('--namespace <ns>', 'the namespace')
  .option('--mode <mode>', 'hybrid | vector | lexical (default: the live setting conversation_search_default_mode)')
  .option('--lexical-weight <w>', "the words' share in hybrid mode, 0-1 (default 0.5)")
  .option('--thread <id>', 'one thread only')
  .option('--run <id>', 'one run only')
  .option('--role <role>', 'user | assistant | system (summaries)')
  .option('--agent <agent>', 'one agent\'s turns, or * for every agent (default: the token\'s agent)')
  .option('--limit <n>', 'most hits (default 10, at most 100)')
  .option('--all', 'every namespace the token can read, not only --namespace')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'a viewer token (default $LOOM_TOKEN)')
  .option('--json', 'print the answer as JSON')
  .action(searchCommand);

const code = program.command('code').description('the code index: a repository\'s history (needs LOOM_CODE_INGEST_ENABLED=true on the gateway)');
code
  .command('add <path>')
  .description('index a git clone\'s mainline history (commits, files, hunks, symbols, PR numbers); rerun to take new commits or resume')
  .option('--name <name>', 'the repository\'s name in Loom (default: the folder\'s name)')
  .option('--ref <ref>', 'branch, tag or commit to index up to (default HEAD)')
  .option('--github <owner/name>', 'then sync its GitHub source (as loom code github)')
  .option('--github-api <url>', 'with --github: a GitHub Enterprise Server API, https://host/api/v3 (default: the gateway\'s LOOM_GITHUB_API_URL; others must be in its LOOM_GITHUB_API_URLS)')
  .option('--namespace <ns>', 'the namespace', 'default')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'an admin token (default $LOOM_TOKEN)')
  .option('--json', 'print the repository as JSON when done')
  .action(codeAddCommand);
code
  .command('github <repository> <owner/name>')
  .description('sync an added repository\'s GitHub source: merged and open PRs, reviews, review comments, issues; the token comes from $GITHUB_TOKEN (else the gateway\'s LOOM_GITHUB_TOKEN); rerun to take what is new or to resume')
  .option('--github-api <url>', 'a GitHub Enterprise Server API, https://host/api/v3 (default: the gateway\'s LOOM_GITHUB_API_URL; others must be in its LOOM_GITHUB_API_URLS)')
  .option('--namespace <ns>', 'the namespace', 'default')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'an admin Loom token (default $LOOM_TOKEN)')
  .option('--json', 'print the source as JSON when done')
  .action(codeGithubCommand);
code
  .command('list')
  .description('indexed repositories and their ingest progress')
  .option('--namespace <ns>', 'the namespace', 'default')
  .option('--url <url>', 'the gateway (default $LOOM_URL)')
  .option('--token <token>', 'a viewer token (default $LOOM_TOKEN)')
  .option('--json', 'print JSON')
  .action(codeListCommand);

const history = program.command('history').description('what changed a path, a symbol or a line, and through which PRs');
for (const [kind, args, description] of [
  ['path', '<repository> <path>', 'commits and PRs that touched a file (renames followed) or a directory, newest first'],
  ['symbol', '<repository> <symbol>', 'commits and PRs whose hunks changed a symbol (`query` or `Client.query`)'],
  ['line', '<repository> <path:line>', 'the chain of commits that wrote a line (blame through history)'],
] as const) {
  const command = history.command(`${kind} ${args}`).description(description);
  if (kind === 'line') command.option('--ref <sha>', 'the commit the line number refers to (default: the newest indexed)');
  if (kind === 'symbol') command.option('--path <prefix>', 'only changes under this path');
  command
    .option('--namespace <ns>', 'the namespace', 'default')
    .option('--limit <n>', 'most commits (default 50, at most 500)')
    .option('--url <url>', 'the gateway (default $LOOM_URL)')
    .option('--token <token>', 'a viewer token (default $LOOM_TOKEN)')
    .option('--json', 'print the answer as JSON')
    .action((repository: string, subject: string, options: Parameters<typeof historyCommand>[3]) => historyCommand(kind, repository, subject, options));
}

const token = program.command('token').description('API tokens');
token
  .command('create')
  .description('mint a token (shown once)')
  .requiredOption('--namespace <ns>', 'the namespace the token acts on ("*" for every namespace)')
  .requiredOption('--role <role>', 'viewer | writer | admin')
  .option('--read-scope <scope>', 'all | own_user | own_session', undefined)
  .option('--read-user-id <id>', 'with --read-scope own_user or own_session: the one user the token acts as')
  .option('--read-session-id <id>', 'with --read-scope own_session: the one session the token acts for')
  .option('--label <text>', 'a note on what the token is for')
  .option('--url <url>', 'the gateway to ask (default http://127.0.0.1:$LOOM_PORT)')
  .action(tokenCreateCommand);
token
  .command('list')
  .description('the tokens: id, role, namespaces, read scope, created, last used (to the minute) and label; never a secret (admin)')
  .option('--namespace <ns>', 'only the tokens granted on this namespace')
  .option('--revoked', 'also the revoked tokens')
  .option('--url <url>', 'the gateway (default $LOOM_URL, else http://127.0.0.1:$LOOM_PORT; with none running, the data directory)')
  .option('--token <token>', 'an admin token (default the local admin token, else $LOOM_TOKEN)')
  .option('--json', 'print JSON')
  .action(tokenListCommand);
token
  .command('revoke <token_id>')
  .description('revoke a token: it stops working at once (admin)')
  .option('--url <url>', 'the gateway (default $LOOM_URL, else http://127.0.0.1:$LOOM_PORT; with none running, the data directory)')
  .option('--token <token>', 'an admin token (default the local admin token, else $LOOM_TOKEN)')
  .action(tokenRevokeCommand);

const tracker = program.command('tracker').description("the tracker plane: the team's own ClickHouse (issues, PR links, CI runs, incidents), read live; needs LOOM_TRACKER_ORG and a registered source");
const trackerCommon = (c: ReturnType<typeof tracker.command>, role: string) =>
  c
    .requiredOption('--namespace <ns>', 'the namespace')
    .option('--url <url>', 'the gateway (default $LOOM_URL)')
    .option('--token <token>', `${role} token (default $LOOM_TOKEN)`)
    .option('--json', 'print JSON');
trackerCommon(tracker.command('status').description('whether the tracker plane is on, and how to turn it on'), 'a viewer').action(trackerStatusCommand);
trackerCommon(
  tracker
    .command('register')
    .description('point Loom at the tracker: --file holds {connection, mapping} as tracker.source_register takes them; LOOM_TRACKER_SOURCE_PASSWORD overrides the password')
    .requiredOption('--file <path>', 'the JSON source description'),
  'an admin',
).action(trackerRegisterCommand);
trackerCommon(
  tracker
    .command('duplicate-check')
    .description('older issues ranked by how likely a new one duplicates each')
    .option('--title <text>', "the new issue's title")
    .option('--issue <id>', 'instead: an issue already in the tracker, against those opened before it')
    .option('--body <text>', "the new issue's body")
    .option('--body-file <path>', 'read the body from a file')
    .option('--before <time>', 'only issues opened before this ISO time')
    .option('--limit <n>', 'candidates shown (1-50, default 10)'),
  'a viewer',
).action(trackerDuplicateCheckCommand);
trackerCommon(tracker.command('links <issue>').description('pull requests and commits that close an issue (link table, "Fixes #N")'), 'a viewer').action(trackerLinksCommand);
trackerCommon(
  tracker
    .command('flaky')
    .description('tests that both failed and passed on the same commit')
    .option('--since <time>', 'only runs from this ISO time')
    .option('--test <name>', 'one test')
    .option('--limit <n>', 'tests per page (1-200, default 50)')
    .option('--offset <n>', 'skip this many'),
  'a viewer',
).action(trackerFlakyCommand);
trackerCommon(
  tracker
    .command('incidents')
    .description('incidents, newest first, with the PRs and commits that caused or fixed each (needs mapping.incidents)')
    .option('--since <time>', 'only incidents started from this ISO time')
    .option('--until <time>', 'only incidents started up to this ISO time')
    .option('--pr <n>', 'only incidents linked to this pull request')
    .option('--repository <name>', 'only incidents of this repository (app or acme/app); with --pr, its PR')
    .option('--commit <sha>', 'only incidents linked to this commit (7+ hex digits)')
    .option('--severity <s>', 'only this severity')
    .option('--status <s>', 'only this status')
    .option('--limit <n>', 'incidents per page (1-200, default 50)')
    .option('--offset <n>', 'skip this many'),
  'a viewer',
).action(trackerIncidentsCommand);

const dev = program.command('dev').description('development tools');
dev
  .command('clickhouse')
  .description('a development ClickHouse HTTP endpoint over chDB (tests and development only, never production)')
  .option('--data-dir <dir>', 'the chDB data directory', './.loom/dev-clickhouse')
  .option('--port <port>', 'HTTP port', '8123')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  // Loaded on use: the engine behind it is 550 MB that no other command needs.
  .action(async (options: { dataDir: string; port: string; host: string }) => (await import('./commands/dev-clickhouse.command.js')).devClickHouseCommand(options));

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`loom: ${error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
