import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..');
const PLUGIN = join(ROOT, 'integrations', 'claude-code');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string>; files: string[] };

/** Putting the capture clients to work: `loom` on the PATH, and the Claude Code plugin's marketplace entry. */
describe('installing Loom for the capture clients', () => {
  it('[issue 12: npm install -g] npm install -g from a checkout puts loom on the PATH, and it runs', async () => {
    const prefix = mkdtempSync(join(tmpdir(), 'loom-global-'));
    try {
      // A folder install links the checkout (its dist/ and node_modules/); nothing is downloaded.
      await run('npm', ['install', '-g', ROOT, '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', '--offline']);
      const bin = join(prefix, 'bin', 'loom');
      expect(existsSync(bin)).toBe(true);
      const { stdout } = await run('loom', ['--version'], { env: { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}` } });
      expect(stdout).toBe(`${pkg.version}\n`);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  }, 180_000);

  it('[issue 12: packed tarball] the package ships the built CLI its bin needs, and the integrations, never the sources or tests', async () => {
    expect(pkg.bin).toEqual({ loom: 'bin/loom' });
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT });
    const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['bin/loom', 'dist/apps/cli/src/main.js', 'integrations/claude-code/.claude-plugin/plugin.json', 'integrations/claude-code/.claude-plugin/marketplace.json', 'package.json']));
    expect(files.filter((f) => /\.(spec|int-spec|e2e-spec)\.|^libs\/|^apps\/|^e2e\/|^bench\//.test(f))).toEqual([]);
  }, 120_000);

  it('[issue 12: plugin marketplace] the Claude Code marketplace entry names the plugin beside it, at the version of its manifest and of Loom', () => {
    const marketplace = JSON.parse(readFileSync(join(PLUGIN, '.claude-plugin', 'marketplace.json'), 'utf8')) as { name: string; owner: { name: string }; plugins: Array<{ name: string; source: string; version: string }> };
    const plugin = JSON.parse(readFileSync(join(PLUGIN, '.claude-plugin', 'plugin.json'), 'utf8')) as { name: string; version: string; hooks: string };
    expect(marketplace.name).toMatch(/^[a-z0-9-]+$/);
    expect(marketplace.owner.name).not.toBe('');
    expect(marketplace.plugins).toEqual([expect.objectContaining({ name: plugin.name, source: './', version: plugin.version })]);
    expect(plugin.version).toBe(pkg.version);
    // What the plugin's manifest points at is there.
    expect(existsSync(join(PLUGIN, plugin.hooks))).toBe(true);
    const hooks = JSON.parse(readFileSync(join(PLUGIN, plugin.hooks), 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    for (const entry of Object.values(hooks.hooks).flat().flatMap((h) => h.hooks)) {
      const script = /\$\{CLAUDE_PLUGIN_ROOT\}\/([^"]+)/.exec(entry.command)?.[1];
      expect(script && existsSync(join(PLUGIN, script))).toBe(true);
    }
  });
});
