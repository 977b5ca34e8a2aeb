/// <reference lib="dom" />
import { chromium, type Browser, type Page } from 'playwright-core';
import { startOpenAiCompatibleServer, startTestLoom, uniqueNamespace, type OpenAiCompatibleServer, type TestLoom } from '../libs/testing/src';

/** The dashboard in a real browser: Debian's Chromium driven by playwright-core (no downloaded browser). */
describe('dashboard: Conversations page (Chromium)', () => {
  let loom: TestLoom;
  let llm: OpenAiCompatibleServer;
  let browser: Browser;
  let page: Page;
  let ns: string;
  let adminToken: string;

  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: () => 'Ledger migration for invoices' });
    loom = await startTestLoom({ env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'titles' } });
    browser = await chromium.launch({
      executablePath: process.env['LOOM_TEST_CHROMIUM'] ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    adminToken = (await loom.admin.ok('token.create', { namespace: ns, role: 'admin' })).token;
    page = await browser.newPage();
  });
  afterEach(async () => page.close());
  afterAll(async () => {
    await browser?.close();
    await loom.close();
    await llm.close();
  });

  const openDashboard = async (token = adminToken) => {
    await page.goto(`${loom.url}/dashboard`);
    await page.fill('#namespace', ns);
    await page.fill('#token', token);
    await page.click('#connect button[type=submit]');
    await page.waitForSelector('#conversations:not([hidden])');
  };
  const append = (content: string, thread = 't') => loom.admin.ok('conversation.append', { namespace: ns, thread_id: thread, role: 'user', content });

  it('CONV-REC-05: flipping "Record conversations" changes the same flag as conversation.set_logging, and appends follow it', async () => {
    await openDashboard();
    expect(await page.isChecked('#record-switch')).toBe(false);
    expect((await append('before the switch')).reason).toBe('logging_disabled');
    await page.click('#record-switch');
    await page.waitForFunction(() => document.getElementById('status')!.textContent!.includes('Recording is on'));
    expect((await loom.admin.ok('conversation.get_logging', { namespace: ns })).conversation_logging_enabled).toBe(true);
    expect(await append('after the switch')).toMatchObject({ stored: true });
    await page.click('#record-switch');
    await page.waitForFunction(() => document.getElementById('status')!.textContent!.includes('Recording is off'));
    expect((await append('off again')).reason).toBe('logging_disabled');
    // And the other way: the API's switch is what the page shows.
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await page.reload();
    await page.waitForSelector('#conversations:not([hidden])');
    expect(await page.isChecked('#record-switch')).toBe(true);
  });

  it('a viewer cannot flip the switch: the page says why and the switch stays as it was', async () => {
    const viewer = (await loom.admin.ok('token.create', { namespace: ns, role: 'viewer' })).token;
    await openDashboard(viewer);
    await page.click('#record-switch');
    await page.waitForFunction(() => document.getElementById('status')!.className === 'error');
    expect(await page.textContent('#status')).toMatch(/needs the admin role/);
    expect(await page.isChecked('#record-switch')).toBe(false);
    expect((await loom.admin.ok('conversation.get_logging', { namespace: ns })).conversation_logging_enabled).toBe(false);
  });

  it('CONV-TITLE-09: the Conversations page leads each thread with its generated title', async () => {
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    for (let i = 0; i < 4; i++) await append(`turn ${i} about moving invoices to the new ledger`, 'titled');
    await append('a thread too short to title', 'untitled');
    await loom.gateway.runtime.titler!.runOnce();
    await openDashboard();
    const headings = await page.$$eval('#threads .thread-heading', (nodes) => nodes.map((n) => n.textContent));
    expect(headings).toContain('Ledger migration for invoices');
    expect(headings).toContain('untitled');
    await page.click('li[data-thread-id="titled"]');
    await page.waitForSelector('#thread:not([hidden])');
    expect(await page.textContent('#thread-title')).toBe('Ledger migration for invoices');
    expect(await page.$$eval('#turns li', (nodes) => nodes.length)).toBe(4);
  });

  it('BRIEF-RESTORE-01: the briefs section names the saved briefs and loads one only when the person asks', async () => {
    await loom.admin.ok('session.brief_save', { namespace: ns, project: 'billing', branch: 'ledger-move', sections: { goal: 'Move invoices to the new ledger' } });
    await openDashboard();
    await page.waitForSelector('#briefs li[data-brief-key="auto/billing/ledger-move"]');
    expect(await page.isHidden('#brief')).toBe(true);
    expect(await page.textContent('body')).not.toContain('Move invoices to the new ledger');
    await page.click('#briefs li[data-brief-key="auto/billing/ledger-move"] button');
    await page.waitForSelector('#brief:not([hidden])');
    expect(await page.textContent('#brief-text')).toContain('## Goal\nMove invoices to the new ledger');
  });

  it('RUNS-02: the runs table shows each run\'s reported model cost, none for a run without usage, and the page total', async () => {
    const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: ns, ...body });
    await ok('run.begin', { run_id: 'quiet', goal: 'A run whose client reported nothing' });
    // claude-sonnet-4-5: $3 per million input tokens, $15 per million output tokens.
    await ok('run.report_usage', { run_id: 'costly', goal: 'Claude Code session in billing (main)', agent: 'claude', reports: [{ usage_id: 'm1', model: 'claude-sonnet-4-5', input_tokens: 1_000_000, output_tokens: 100_000 }] });
    await openDashboard();
    const cells = (id: string) => page.$$eval(`#runs tr[data-run-id="${id}"] td`, (nodes) => nodes.map((n) => n.textContent));
    expect(await cells('costly')).toEqual(['Claude Code session in billing (main)', 'claude', 'running', expect.any(String), '1', '1,000,000 / 100,000', '$4.50']);
    expect((await cells('quiet')).slice(4)).toEqual(['—', '—', '—']);
    expect(await page.textContent('#runs-total')).toBe('These 2 run(s): $4.50.');
  });

  it('renders turn text as text, never as HTML', async () => {
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await append('<img src=x onerror="window.__pwned=1">', 'xss');
    await openDashboard();
    await page.click('li[data-thread-id="xss"]');
    await page.waitForSelector('#thread:not([hidden])');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.textContent('#turns li')).toContain('<img src=x');
  });
});
