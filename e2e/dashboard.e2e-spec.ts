/// <reference lib="dom" />
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  const openDashboard = async (token = adminToken, hash = '') => {
    await page.goto(`${loom.url}/dashboard${hash}`);
    // A token pasted earlier in this tab reconnects by itself: start from the first screen.
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
    await page.waitForSelector('#connect-page:not([hidden])');
    await page.fill('#namespace', ns);
    await page.fill('#token', token);
    await page.click('#connect button[type=submit]');
    await page.waitForSelector(`#${hash.slice(1) || 'conversations'}:not([hidden])`);
    await page.waitForFunction(() => document.getElementById('status')!.textContent === '');
  };
  const saveFor = (user: string, conv: string, id: string, content: string) =>
    loom.admin.ok('conversation.save_message', { namespace: ns, user_id: user, conversation_id: conv, message_id: id, role: 'assistant', content });
  const texts = (selector: string) => page.$$eval(selector, (nodes) => nodes.map((n) => n.textContent ?? ''));
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

  it('[issue 12: dashboard] the Record switch\'s note describes the current state, off and on', async () => {
    await openDashboard();
    expect(await page.textContent('#record-note')).toMatch(/^Off: /);
    expect(await page.isHidden('#record-reason')).toBe(true);
    await page.click('#record-switch');
    await page.waitForFunction(() => document.getElementById('record-note')!.textContent!.startsWith('On: '));
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: false });
    await page.reload();
    await page.waitForSelector('#conversations:not([hidden])');
    await page.waitForFunction(() => document.getElementById('record-note')!.textContent!.startsWith('Off: '));
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await page.reload();
    await page.waitForFunction(() => document.getElementById('record-note')!.textContent!.startsWith('On: '));
    expect(await page.isChecked('#record-switch')).toBe(true);
  });

  it('[issue 12: dashboard] a viewer or writer cannot flip the switch: it is disabled, the reason is shown, and a click changes nothing', async () => {
    for (const role of ['viewer', 'writer']) {
      const token = (await loom.admin.ok('token.create', { namespace: ns, role })).token;
      await openDashboard(token);
      expect(await page.isDisabled('#record-switch')).toBe(true);
      expect(await page.textContent('#record-reason')).toBe(`Only an admin can change recording; this token is a ${role}.`);
      expect(await page.isVisible('#record-reason')).toBe(true);
      expect(await page.textContent('#record-note')).toMatch(/^Off: /);
      await page.click('#record-switch', { force: true });
      await new Promise((r) => setTimeout(r, 200));
      expect(await page.isChecked('#record-switch')).toBe(false);
      expect((await loom.admin.ok('conversation.get_logging', { namespace: ns })).conversation_logging_enabled).toBe(false);
    }
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

  it('[issue 12: dashboard] the first screen asks for a token and says where to find one; an unknown token is refused there', async () => {
    await page.goto(`${loom.url}/dashboard`);
    await page.waitForSelector('#connect-page:not([hidden])');
    const help = await page.textContent('#connect-page');
    expect(help).toContain('loom token create --namespace acme --role viewer');
    expect(help).toContain('.loom/admin-token');
    expect(help).toContain('loom up');
    for (const hidden of ['#pages', '#conversations', '#saved', '#settings']) expect(await page.isHidden(hidden)).toBe(true);
    await page.fill('#token', 'loom_not-a-real-token-at-all');
    await page.click('#connect button[type=submit]');
    await page.waitForFunction(() => document.getElementById('status')!.className === 'error');
    expect(await page.textContent('#status')).toMatch(/does not know that token/);
    expect(await page.isVisible('#connect-page')).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('loom.session'))).toBeNull();
  });

  it('[issue 12: dashboard] the Conversations search box runs conversation.search (hybrid by default), shows the mode and hits with excerpts, and opens a hit\'s thread', async () => {
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await append('We moved the invoices to ledger_v2 after the PROJ-881 incident.', 'billing');
    await append('Lunch is at noon.', 'misc');
    await openDashboard();
    await page.fill('#conv-search', 'ledger_v2');
    await page.click('#conv-search-form button[type=submit]');
    await page.waitForSelector('#conv-search-summary:not([hidden])');
    expect(await page.textContent('#conv-search-summary')).toMatch(/^Mode: hybrid · 1 hit\(s\)/);
    expect(await texts('#conv-search-results .excerpt')).toEqual(['We moved the invoices to ledger_v2 after the PROJ-881 incident.']);
    await page.selectOption('#conv-search-mode', 'lexical');
    await page.click('#conv-search-form button[type=submit]');
    await page.waitForFunction(() => document.getElementById('conv-search-summary')!.textContent!.startsWith('Mode: lexical'));
    await page.click('#conv-search-results li[data-thread-id="billing"]');
    await page.waitForSelector('#thread:not([hidden])');
    expect(await page.textContent('#turns')).toContain('PROJ-881');
    await page.fill('#conv-search', 'nothing like this anywhere');
    await page.selectOption('#conv-search-mode', 'lexical');
    await page.click('#conv-search-form button[type=submit]');
    await page.waitForFunction(() => document.getElementById('conv-search-results')!.textContent === 'Nothing found.');
  });

  it('[issue 12: dashboard] the Saved panel lists a user\'s saved messages, searches them (excerpt around the match) and unsaves one', async () => {
    await saveFor('ada', 'c1', 'm1', 'Use ledger_v2 for invoices from now on.');
    await saveFor('ada', 'c1', 'm2', 'Long answer. ' + 'Filler about nothing. '.repeat(100) + 'Run the ZX-4417 backfill afterwards.');
    await saveFor('bob', 'c1', 'm3', 'Bob saved this about ledger_v2 too.');
    const writer = (await loom.admin.ok('token.create', { namespace: ns, role: 'writer' })).token;
    await openDashboard(writer, '#saved');
    expect(await page.isHidden('#unsave-reason')).toBe(true);
    await page.fill('#saved-user', 'ada');
    await page.click('#saved-form button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('#saved-list li[data-message-id]').length === 2);
    expect(await page.textContent('#saved-summary')).toBe('2 saved message(s) of ada, newest first');
    await page.fill('#saved-search', 'ZX-4417');
    await page.click('#saved-form button[type=submit]');
    await page.waitForFunction(() => document.getElementById('saved-summary')!.textContent!.startsWith('Mode: hybrid · 1 hit(s)'));
    const [excerpt] = await texts('#saved-list .excerpt');
    expect(excerpt).toContain('ZX-4417');
    expect(excerpt).not.toContain('Long answer.');
    await page.fill('#saved-search', '');
    await page.click('#saved-form button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('#saved-list li[data-message-id]').length === 2);
    await page.click('#saved-list li[data-message-id="m1"] button.unsave');
    await page.waitForFunction(() => document.querySelector('#saved-list li[data-message-id="m1"]') === null);
    expect(await page.textContent('#status')).toMatch(/^Unsaved m1/);
    const status = await loom.admin.ok('conversation.saved_status', { namespace: ns, user_id: 'ada', conversation_id: 'c1', message_ids: ['m1', 'm2'] });
    expect(status.saved).toEqual({ m1: false, m2: true });
    expect((await loom.admin.ok('conversation.saved_status', { namespace: ns, user_id: 'bob', conversation_id: 'c1', message_ids: ['m3'] })).saved).toEqual({ m3: true });
  });

  it('[issue 12: dashboard] a viewer sees saved messages but Unsave is disabled with the reason; a user-bound token is pinned to its user', async () => {
    await saveFor('ada', 'c1', 'm1', 'A note ada saved.');
    const viewer = (await loom.admin.ok('token.create', { namespace: ns, role: 'viewer' })).token;
    await openDashboard(viewer, '#saved');
    expect(await page.textContent('#unsave-reason')).toBe('Unsaving needs the writer role; this token is a viewer.');
    await page.fill('#saved-user', 'ada');
    await page.click('#saved-form button[type=submit]');
    await page.waitForSelector('#saved-list li[data-message-id="m1"]');
    expect(await page.isDisabled('#saved-list li[data-message-id="m1"] button.unsave')).toBe(true);
    await page.click('#saved-list li[data-message-id="m1"] button.unsave', { force: true });
    expect((await loom.admin.ok('conversation.saved_status', { namespace: ns, user_id: 'ada', conversation_id: 'c1', message_ids: ['m1'] })).saved).toEqual({ m1: true });

    const pinned = (await loom.admin.ok('token.create', { namespace: ns, role: 'writer', read_scope: 'own_user', read_user_id: 'ada' })).token;
    await openDashboard(pinned, '#saved');
    expect(await page.inputValue('#saved-user')).toBe('ada');
    expect(await page.isDisabled('#saved-user')).toBe(true);
    expect(await page.textContent('#saved-user-reason')).toBe('This token acts for user ada only.');
    await page.waitForSelector('#saved-list li[data-message-id="m1"]');
    await page.click('a[data-page="conversations"]');
    await page.waitForSelector('#conversations:not([hidden])');
    await page.waitForFunction(() => document.getElementById('record-reason')!.textContent!.includes('acts for user ada only'));
    expect(await page.isDisabled('#record-switch')).toBe(true);
    expect(await page.isHidden('#conv-search-section')).toBe(true);
  });

  it('[issue 12: dashboard] Settings shows the live settings; an admin for every namespace edits one, anyone else sees them disabled with the reason', async () => {
    await openDashboard(adminToken, '#settings');
    await page.waitForSelector('#settings-table tr[data-setting="conversation_search_default_mode"]');
    expect(await page.textContent('#settings-reason')).toMatch(/needs an admin token for every namespace.*covers .* only/);
    expect(await page.isDisabled('#settings-table tr[data-setting="conversation_search_excerpt_chars"] input')).toBe(true);
    expect(await page.isDisabled('#settings-table tr[data-setting="conversation_search_excerpt_chars"] button')).toBe(true);
    const viewer = (await loom.admin.ok('token.create', { namespace: ns, role: 'viewer' })).token;
    await openDashboard(viewer, '#settings');
    expect(await page.textContent('#settings-reason')).toBe('Changing a setting needs an admin token for every namespace; this token is a viewer.');

    await openDashboard(loom.admin.token, '#settings');
    expect(await page.isHidden('#settings-reason')).toBe(true);
    const row = '#settings-table tr[data-setting="conversation_search_excerpt_chars"]';
    expect(await page.inputValue(`${row} input`)).toBe('240');
    try {
      await page.fill(`${row} input`, '120');
      await page.click(`${row} button`);
      await page.waitForFunction(() => document.getElementById('status')!.textContent === 'Saved: conversation_search_excerpt_chars = 120.');
      expect((await loom.admin.ok('settings.get', {})).conversation_search_excerpt_chars).toBe(120);
      await page.fill(`${row} input`, '-5');
      await page.click(`${row} button`);
      await page.waitForFunction(() => document.getElementById('status')!.className === 'error');
      expect(await page.textContent('#status')).toMatch(/Could not save conversation_search_excerpt_chars: .*\(400\)/);
      expect((await loom.admin.ok('settings.get', {})).conversation_search_excerpt_chars).toBe(120);
    } finally {
      await loom.admin.ok('settings.set', { key: 'conversation_search_excerpt_chars', value: 240 });
    }
  });

  it('[issue 12: dashboard] screenshot check of each page: the right size, not blank, the key elements visible', async () => {
    await loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    await append('We moved the invoices to the new ledger.', 'billing');
    await saveFor('ada', 'billing', 'saved-1', 'Use ledger_v2 for invoices.');
    const dir = mkdtempSync(join(tmpdir(), 'loom-dashboard-shots-'));
    const viewport = { width: 1280, height: 800 };
    await page.setViewportSize(viewport);
    // Decoded by the browser itself (a blank page of its own): the PNG's size and how many
    // pixels differ from the page background.
    const inspect = async (file: string): Promise<{ width: number; height: number; colours: number; inked: number }> => {
      const png = readFileSync(file);
      const probe = await browser.newPage();
      try {
        return await probe.evaluate(async (b64) => {
          const img = new Image();
          img.src = `data:image/png;base64,${b64}`;
          await img.decode();
          const canvas = document.createElement('canvas');
          canvas.width = img.width;
          canvas.height = img.height;
          const g = canvas.getContext('2d')!;
          g.drawImage(img, 0, 0);
          const { data } = g.getImageData(0, 0, img.width, img.height);
          const colours = new Set<number>();
          let inked = 0;
          const bg = [data[data.length - 4], data[data.length - 3], data[data.length - 2]];
          for (let i = 0; i < data.length; i += 4) {
            colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
            if (Math.abs(data[i]! - bg[0]!) + Math.abs(data[i + 1]! - bg[1]!) + Math.abs(data[i + 2]! - bg[2]!) > 30) inked += 1;
          }
          return { width: img.width, height: img.height, colours: colours.size, inked: inked / (data.length / 4) };
        }, png.toString('base64'));
      } finally {
        await probe.close();
      }
    };
    const shoot = async (name: string, visible: string[]) => {
      for (const selector of visible) expect([name, selector, await page.isVisible(selector)]).toEqual([name, selector, true]);
      const file = join(dir, `${name}.png`);
      await page.screenshot({ path: file });
      const shot = await inspect(file);
      expect([name, shot.width, shot.height]).toEqual([name, viewport.width, viewport.height]);
      expect([name, shot.colours > 50]).toEqual([name, true]);
      expect([name, shot.inked > 0.05]).toEqual([name, true]);
    };
    try {
      await page.goto(`${loom.url}/dashboard`);
      await page.evaluate(() => sessionStorage.clear());
      await page.reload();
      await page.waitForSelector('#connect-page:not([hidden])');
      await shoot('connect', ['#connect-heading', '#token', '#token-help', '#connect button[type=submit]']);
      await openDashboard();
      await page.fill('#conv-search', 'ledger');
      await page.click('#conv-search-form button[type=submit]');
      await page.waitForSelector('#conv-search-results li');
      await shoot('conversations', ['#pages', '#whoami', '#record-switch', '#record-note', '#conv-search', '#conv-search-summary', '#threads li']);
      await page.click('a[data-page="saved"]');
      await page.waitForSelector('#saved:not([hidden])');
      await page.fill('#saved-user', 'ada');
      await page.click('#saved-form button[type=submit]');
      await page.waitForSelector('#saved-list li[data-message-id="saved-1"]');
      await shoot('saved', ['#saved-heading', '#saved-user', '#saved-search', '#saved-list li[data-message-id="saved-1"] button.unsave']);
      await page.click('a[data-page="settings"]');
      await page.waitForSelector('#settings-table tr[data-setting="conversation_search_default_mode"]');
      await shoot('settings', ['#settings-heading', '#settings-reason', '#settings-table tr[data-setting="conversation_search_excerpt_chars"] input']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
