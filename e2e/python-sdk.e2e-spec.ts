import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { BUILT_CLI, freePort, httpOk, launch, waitFor, type ManagedProcess } from '../libs/testing/src';

const ROOT = resolve(__dirname, '..');
const SDK = join(ROOT, 'sdk', 'python');
/**
 * Debian's interpreter, named in full: a version manager's python3 (pyenv) may come first on the
 * PATH and has neither Debian's pytest nor its setuptools.
 */
const PYTHON = process.env['LOOM_TEST_PYTHON'] ?? '/usr/bin/python3';
const ADMIN = `py-sdk-admin-${process.pid}-0123456789`;
const MISSING = `the Python SDK tests need Debian's python3 with pytest, venv and pip: apt-get install -y python3-pytest python3-venv python3-pip (.ci/run installs them)`;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, keeping its exit code and output (a failing pytest is an answer, not a throw). */
function runToEnd(command: string, args: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

/** pytest's closing line, e.g. "23 passed in 11.69s", as counts by outcome. */
function summary(stdout: string): Record<string, number> {
  const line = stdout.trim().split('\n').pop() ?? '';
  return Object.fromEntries([...line.matchAll(/(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)/g)].map((m) => [m[2]!, Number(m[1])]));
}

/** sdk/python as a reader uses it: Debian's python3 and pytest, and `pip install` offline, against a live `loom up`. */
describe('[issue 12: Python SDK] sdk/python against a live loom up', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loom-py-sdk-'));
  const work = mkdtempSync(join(tmpdir(), 'loom-py-install-'));
  let up: ManagedProcess | undefined;
  let url = '';

  beforeAll(async () => {
    const probe = spawnSync(PYTHON, ['-c', 'import pytest, venv, ensurepip'], { encoding: 'utf8' });
    if (probe.status !== 0) throw new Error(`${MISSING}\n${PYTHON}: ${probe.error?.message ?? probe.stderr}`);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    up = launch('loom up', process.execPath, [BUILT_CLI, 'up'], { LOOM_DATA_DIR: dataDir, LOOM_PORT: String(port), LOOM_BOOTSTRAP_ADMIN_TOKEN: ADMIN, LOOM_LOG_LEVEL: 'warn' });
    await waitFor('loom up', () => httpOk(`${url}/readyz`), { processes: [up] });
  }, 180_000);

  afterAll(async () => {
    await up?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('[issue 12: Python SDK] python3 -m pytest sdk/python/tests (the spec Session SDK-SESSION-01..08, the client, the examples) passes against it', async () => {
    // -p no:cacheprovider: the run writes nothing into the checkout.
    const ran = await runToEnd(PYTHON, ['-m', 'pytest', 'sdk/python/tests', '-q', '-p', 'no:cacheprovider'], { env: { LOOM_URL: url, LOOM_TOKEN: ADMIN } });
    const counts = summary(ran.stdout);
    if (ran.code !== 0) throw new Error(`pytest exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
    expect(counts['passed']).toBeGreaterThanOrEqual(23);
    // Nothing failed, errored, was skipped or deselected (a warning is not an outcome).
    expect(Object.keys(counts).filter((k) => !['passed', 'warning', 'warnings'].includes(k))).toEqual([]);
  }, 300_000);

  it('[issue 12: pip install] pip install --no-build-isolation --no-index installs it offline into a venv, where the installed package runs the examples from outside the repository', async () => {
    // A copy, so the build's own files (build/, *.egg-info) never land in the checkout.
    const source = join(work, 'python');
    cpSync(SDK, source, { recursive: true, filter: (p) => !['build', '__pycache__', '.pytest_cache'].includes(basename(p)) && !p.endsWith('.egg-info') });
    const venv = join(work, 'venv');
    const made = await runToEnd(PYTHON, ['-m', 'venv', '--system-site-packages', venv]);
    expect(made).toMatchObject({ code: 0 });
    const pip = join(venv, 'bin', 'pip');
    // The command the README gives, on the copy; --no-cache-dir keeps the machine's pip cache out of it.
    const installed = await runToEnd(pip, ['install', '--no-build-isolation', '--no-index', '--no-cache-dir', '--disable-pip-version-check', source], { cwd: work });
    if (installed.code !== 0) throw new Error(`pip install failed:\n${installed.stdout}\n${installed.stderr}`);
    expect(installed.stdout).toMatch(/Successfully installed loom-sdk-0\.1\.0/);
    rmSync(source, { recursive: true, force: true });

    const python = join(venv, 'bin', 'python');
    const where = await runToEnd(python, ['-c', 'import loom; print(loom.__file__); print(loom.__version__)'], { cwd: work });
    const [file, version] = where.stdout.trim().split('\n');
    expect(file!.startsWith(join(venv, 'lib'))).toBe(true);
    expect(version).toBe(readFileSync(join(SDK, 'pyproject.toml'), 'utf8').match(/^version = "(.+)"$/m)?.[1]);
    expect(existsSync(join(file!, '..', 'py.typed'))).toBe(true);

    // The tests' conftest leaves sys.path alone here, so `import loom` is the installed package.
    const ran = await runToEnd(python, ['-m', 'pytest', join(SDK, 'tests', 'test_examples.py'), '-q', '-p', 'no:cacheprovider'], {
      cwd: work,
      env: { LOOM_URL: url, LOOM_TOKEN: ADMIN, LOOM_SDK_TEST_INSTALLED: '1' },
    });
    if (ran.code !== 0) throw new Error(`pytest (installed package) exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
    expect(summary(ran.stdout)).toMatchObject({ passed: 5 });
    expect(Object.keys(summary(ran.stdout)).filter((k) => !['passed', 'warning', 'warnings'].includes(k))).toEqual([]);
  }, 300_000);
});
