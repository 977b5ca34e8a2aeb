import 'reflect-metadata';
import { Command } from 'commander';
import { ConfigError } from '@loom/platform';
import { upCommand } from './commands/up.command';
import { migrateCommand } from './commands/migrate.command';
import { tokenCreateCommand } from './commands/token.command';
import { reembedCommand } from './commands/reembed.command';

const program = new Command('loom').description('Loom: a memory of coding-agent sessions').showHelpAfterError();

program.command('up').description('start Loom in one process: embedded ClickHouse (chDB), in-process transport, gateway').action(upCommand);
program.command('migrate').description('apply pending schema migrations to the configured ClickHouse').action(migrateCommand);

program
  .command('reembed')
  .description("give stored turns vectors of the configured embedding model (after a provider switch), from each embedding row's stored text")
  .option('--namespace <ns>', 'only this namespace (default: every namespace)')
  .option('--all', 'also re-embed turns that already have a vector of the current model')
  .action(reembedCommand);

const token = program.command('token').description('API tokens');
token
  .command('create')
  .description('mint a token (shown once)')
  .requiredOption('--namespace <ns>', 'the namespace the token acts on ("*" for every namespace)')
  .requiredOption('--role <role>', 'viewer | writer | admin')
  .option('--read-scope <scope>', 'all | own_user | own_session', undefined)
  .option('--read-user-id <id>', 'with --read-scope own_user: the one user the token acts as')
  .option('--label <text>', 'a note on what the token is for')
  .option('--url <url>', 'the gateway to ask (default http://127.0.0.1:$LOOM_PORT)')
  .action(tokenCreateCommand);

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
