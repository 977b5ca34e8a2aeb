import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createTrackerTables, startTestLoom, trackerRegistration, uniqueNamespace, type TestLoom } from '../libs/testing/src';
// The incidents case (its own describe block at the end).
import { createOutagesTable, trackerRegistrationWithIncidents } from '../libs/testing/src';

const run = promisify(execFile);
const CLI = join(resolve(__dirname, '..'), 'dist', 'apps', 'cli', 'src', 'main.js');

/** `loom tracker …` as a process against a running gateway, on the embedded default. */
describe('loom tracker (CLI) [issue 13: tracker]', () => {
  let loom: TestLoom;
  let db: string;
  const ns = uniqueNamespace();
  const work = mkdtempSync(join(tmpdir(), 'loom-tracker-cli-'));
  let env: NodeJS.ProcessEnv;
  const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env });

  beforeAll(async () => {
    loom = await startTestLoom({ withEmbedder: false, env: { LOOM_TRACKER_ORG: 'acme' } });
    db = `${loom.gateway.runtime.storage.tables.database}_cli`;
    await createTrackerTables(loom.gateway.runtime.storage, db);
    env = { ...process.env, LOOM_URL: loom.url, LOOM_TOKEN: loom.admin.token, LOOM_LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await loom.gateway.runtime.storage.command(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    await loom.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('TRACKER-01, SETTINGS-09: status says off and how to turn it on; register --file turns it on (the password from LOOM_TRACKER_SOURCE_PASSWORD, never printed)', async () => {
    expect((await cli('tracker', 'status', '--namespace', ns)).stdout).toMatch(/tracker off for .*tracker\.source_register/);
    const file = join(work, 'source.json');
    writeFileSync(file, JSON.stringify(trackerRegistration(db)));
    const registered = await run(process.execPath, [CLI, 'tracker', 'register', '--namespace', ns, '--file', file, '--json'], { env: { ...env, LOOM_TRACKER_SOURCE_PASSWORD: 'cli-secret-pw' } });
    expect(JSON.parse(registered.stdout)).toMatchObject({ registered: true, issues: 6, source: { connection: { url: 'embedded', password_set: true } } });
    expect(registered.stdout + registered.stderr).not.toContain('cli-secret-pw');
    expect((await cli('tracker', 'status', '--namespace', ns)).stdout).toMatch(/tracker on for .* \(org acme\): embedded/);
  });

  it('TRACKER-03: duplicate-check, links and flaky print what the ops answer', async () => {
    const dup = await cli('tracker', 'duplicate-check', '--namespace', ns, '--title', 'Not-ready Set is passed (LOGICAL_ERROR)', '--body', 'Code: 49', '--before', '2026-01-31T00:00:00Z');
    expect(dup.stdout.split('\n')[0]).toMatch(/^DUPLICATE\s+0\.\d{3}\s+#101\s+Logical error: Not-ready Set is passed/);
    expect((await cli('tracker', 'links', '101', '--namespace', ns)).stdout).toContain('PR #2001  (link_table)');
    expect((await cli('tracker', 'flaky', '--namespace', ns, '--limit', '1')).stdout).toMatch(/^test_a {2}flaky on 2 commit\(s\), 2 failed \/ 3 passed[^\n]*\nmore: --offset 1\n$/);
    const bad = await cli('tracker', 'flaky', '--namespace', ns, '--limit', '0').catch((e: { stderr: string }) => e);
    expect((bad as { stderr: string }).stderr).toMatch(/--limit must be a whole number from 1 to 200/);
  });
});

/** `loom tracker incidents` (issue 13: incidents; ADR 0032). */
describe('loom tracker incidents (CLI) [issue 13: incidents]', () => {
  let loom: TestLoom;
  let db: string;
  const ns = uniqueNamespace();
  let env: NodeJS.ProcessEnv;
  const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env });

  beforeAll(async () => {
    loom = await startTestLoom({ withEmbedder: false, env: { LOOM_TRACKER_ORG: 'acme' } });
    db = `${loom.gateway.runtime.storage.tables.database}_cli_inc`;
    await createTrackerTables(loom.gateway.runtime.storage, db);
    await createOutagesTable(loom.gateway.runtime.storage, db);
    env = { ...process.env, LOOM_URL: loom.url, LOOM_TOKEN: loom.admin.token, LOOM_LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await loom.gateway.runtime.storage.command(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    await loom.close();
  });

  it('PRHIST-02: without mapping.incidents it says to add one; with it, incidents print newest first with what caused and fixed each, filtered and paged', async () => {
    await loom.admin.ok('tracker.source_register', { namespace: ns, ...trackerRegistration(db) });
    const unmapped = await cli('tracker', 'incidents', '--namespace', ns).catch((e: { stderr: string }) => e);
    expect((unmapped as { stderr: string }).stderr).toMatch(/maps no incidents table.*mapping\.incidents/);
    await loom.admin.ok('tracker.source_register', { namespace: ns, ...trackerRegistrationWithIncidents(db) });
    const out = (await cli('tracker', 'incidents', '--namespace', ns, '--severity', 'sev1')).stdout;
    expect(out).toBe(
      [
        'INC-1  2026-03-02T10:00:00Z .. 2026-03-02T11:30:00Z  SEV1 resolved  Checkout latency spike after the sets refactor',
        '    caused by PR #2003, a1b2c3d',
        '    fixed by PR #2008, d4e5f6a',
        'INC-3  2026-01-16T12:00:00Z .. 2026-01-16T13:00:00Z  SEV1 resolved  Parquet import crash',
        '    caused by PR #2004, abcdef1234',
        // A pull request URL names its repository.
        '    fixed by PR acme/app#2005',
        '',
      ].join('\n'),
    );
    expect((await cli('tracker', 'incidents', '--namespace', ns, '--limit', '1')).stdout).toMatch(/^INC-2 .*Replication lag alerts\nmore: --offset 1\n$/);
    expect(JSON.parse((await cli('tracker', 'incidents', '--namespace', ns, '--pr', '#2004', '--json')).stdout).incidents.map((i: { id: string }) => i.id)).toEqual(['INC-3']);
    const ofRepo = async (...args: string[]) => JSON.parse((await cli('tracker', 'incidents', '--namespace', ns, '--json', ...args)).stdout).incidents.map((i: { id: string }) => i.id);
    expect(await ofRepo('--pr', '2005', '--repository', 'acme/app')).toEqual(['INC-3']);
    expect(await ofRepo('--pr', '2005', '--repository', 'acme/other')).toEqual([]);
    const bad = await cli('tracker', 'incidents', '--namespace', ns, '--commit', 'xyz').catch((e: { stderr: string }) => e);
    expect((bad as { stderr: string }).stderr).toMatch(/commit/);
  });
});
