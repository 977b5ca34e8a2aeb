import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { LoomError } from '@loom/contracts';

/** Runs git in a repository and returns its standard output; a refusal becomes a clear error. */
export async function git(repoPath: string, args: readonly string[]): Promise<string> {
  const chunks: Buffer[] = [];
  const errors: Buffer[] = [];
  const child = spawn('git', ['-C', repoPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stderr.on('data', (c: Buffer) => errors.push(c));
  const code = await exitOf(child);
  if (code !== 0) throw gitRefusal(repoPath, args, Buffer.concat(errors).toString('utf8'));
  return Buffer.concat(chunks).toString('utf8');
}

/** Streams git's standard output line by line (a whole history does not fit a string). */
export async function* gitLines(repoPath: string, args: readonly string[]): AsyncGenerator<string> {
  const child = spawn('git', ['-C', repoPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const errors: Buffer[] = [];
  child.stderr.on('data', (c: Buffer) => errors.push(c));
  const exited = exitOf(child);
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  try {
    for await (const line of lines) yield line;
  } finally {
    if (child.exitCode === null) child.kill();
  }
  const code = await exited;
  if (code !== 0 && code !== null) throw gitRefusal(repoPath, args, Buffer.concat(errors).toString('utf8'));
}

function exitOf(child: ReturnType<typeof spawn>): Promise<number | null> {
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new LoomError('not_configured', `git could not be started (${error.message}); install git on the machine that ingests code`)));
    child.once('close', (code) => resolve(code));
  });
}

function gitRefusal(repoPath: string, args: readonly string[], stderr: string): LoomError {
  const said = stderr.trim().split('\n')[0] ?? '';
  if (/not a git repository/i.test(said)) {
    return new LoomError('invalid_input', `"${repoPath}" is not a git repository; give the path of a clone`, { fields: [{ field: 'path', message: 'not a git repository' }] });
  }
  if (/unknown revision|bad revision|ambiguous argument|invalid object name|not a valid object/i.test(said)) {
    return new LoomError('invalid_input', `git does not know that ref (${said})`, { fields: [{ field: 'ref', message: 'unknown ref' }] });
  }
  return new LoomError('internal', `git ${args[0] ?? ''} failed: ${said}`);
}
