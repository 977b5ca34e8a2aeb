import { formatMillis } from '@loom/clickhouse';
import { nextVersion } from '@loom/platform';
import { ControllableProvider, startOpenAiCompatibleServer, startTestLoom, tombstoneTurn, uniqueNamespace, type LoomApi, type OpenAiCompatibleServer, type TestLoom } from '../../testing/src';

const HIGH = 'the staging db password=Hunter2Staging! do not share';

describe('Saved messages', () => {
  const provider = new ControllableProvider();
  let llm: OpenAiCompatibleServer;
  let loom: TestLoom;
  let ns: string;

  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: () => 'A summary of the early turns about invoices.' });
    loom = await startTestLoom({ provider, env: { LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'm', LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  beforeEach(() => {
    provider.failing = false;
    ns = uniqueNamespace();
  });
  afterAll(async () => {
    await loom.close();
    await llm.close();
  });

  const storage = () => loom.gateway.runtime.storage;
  const op = (name: string, body: Record<string, unknown>, api: LoomApi = loom.admin) => api.call(name, { namespace: ns, ...body });
  const ok = async (name: string, body: Record<string, unknown>, api: LoomApi = loom.admin) => {
    const r = await op(name, body, api);
    if (r.status !== 200) throw new Error(`${name} ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const save = (user: string, conv: string, id: string, extra: Record<string, unknown> = {}, api?: LoomApi) =>
    ok('conversation.save_message', { user_id: user, conversation_id: conv, message_id: id, ...extra }, api);
  const saveNew = (user: string, conv: string, id: string, content: string, extra: Record<string, unknown> = {}) => save(user, conv, id, { role: 'assistant', content, ...extra });
  const append = (thread: string, msg: string, content: string, extra: Record<string, unknown> = {}) =>
    ok('conversation.append', { thread_id: thread, msg_id: msg, role: 'assistant', content, ...extra });
  const transcript = (conv: string, id: string) =>
    storage().query<{ user_id: string; is_saved: boolean; saved_at: string | null; run_id: string; content: string; deleted: boolean; ts: string }>(
      `SELECT user_id, is_saved, saved_at, run_id, content, deleted, ts FROM ${storage().tables.conversations} FINAL WHERE namespace = {ns:String} AND thread_id = {t:String} AND msg_id = {m:String}`,
      { ns, t: conv, m: id },
    );
  const vectors = (conv: string, id: string) =>
    storage().query<{ is_saved: boolean; saved_at: string | null; deleted: boolean; embed_error: string; dims: string }>(
      `SELECT is_saved, saved_at, deleted, embed_error, length(embedding) AS dims FROM ${storage().tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND thread_id = {t:String} AND msg_id = {m:String}`,
      { ns, t: conv, m: id },
    );
  const search = (user: string, query: string, extra: Record<string, unknown> = {}) => ok('conversation.search_saved_messages', { user_id: user, query, ...extra });
  const hitIds = (r: { hits: Array<{ message_id: string }> }) => r.hits.map((h) => h.message_id);
  const list = (user: string, extra: Record<string, unknown> = {}) => ok('conversation.list_saved_messages', { user_id: user, ...extra });

  describe('save_message', () => {
    it('SAVE-SAVE-01: needs the writer role; a viewer is refused', async () => {
      const viewer = await loom.as(ns, 'viewer');
      const r = await op('conversation.save_message', { user_id: 'u1', conversation_id: 'c', message_id: 'm', role: 'user', content: 'hi' }, viewer);
      expect(r.status).toBe(403);
      expect(await transcript('c', 'm')).toEqual([]);
    });

    it('SAVE-SAVE-02, SAVE-SAVE-03, CONV-REC-10 (save ignores the switch): with recording off the save is stored, and appends still answer logging_disabled', async () => {
      const saved = await saveNew('u1', 'c', 'm1', 'Use ledger_v2 for invoices from now on.');
      expect(saved).toMatchObject({ indexed: true, saved: true, conversation_id: 'c', message_id: 'm1' });
      expect(await transcript('c', 'm1')).toEqual([expect.objectContaining({ user_id: 'u1', is_saved: true, content: 'Use ledger_v2 for invoices from now on.' })]);
      expect((await append('c', 'm2', 'a later turn')).reason).toBe('logging_disabled');
      expect((await search('u1', 'ledger_v2')).hits).toHaveLength(1);
    });

    it('SAVE-SAVE-04, SAVE-SAVE-05: a stored turn is flagged in place: one row, run_id and content unchanged, saved_at the save time on both rows', async () => {
      await loom.record(ns);
      await append('c', 'm1', 'Backfill PROJ-77 after the export job.', { run_id: 'run-9', user_id: 'u1' });
      const before = (await transcript('c', 'm1'))[0]!;
      await new Promise((r) => setTimeout(r, 20));
      const saved = await save('u1', 'c', 'm1');
      expect(saved.indexed).toBe(true);
      const rows = await transcript('c', 'm1');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ is_saved: true, run_id: 'run-9', content: 'Backfill PROJ-77 after the export job.' });
      expect(rows[0]!.saved_at! > before.ts.slice(0, 23)).toBe(true);
      expect(await vectors('c', 'm1')).toEqual([expect.objectContaining({ is_saved: true, saved_at: rows[0]!.saved_at })]);
      expect(saved.saved_at).toBe(rows[0]!.saved_at!.replace(' ', 'T') + 'Z');
    });

    it('SAVE-SAVE-06, SAVE-OWN-01: a message stored under another user answers owner_mismatch and changes no flag', async () => {
      await loom.record(ns);
      await append('c', 'm1', 'mine', { user_id: 'alice' });
      expect(await save('bob', 'c', 'm1')).toMatchObject({ indexed: false, reason: 'owner_mismatch', saved: false });
      expect((await transcript('c', 'm1'))[0]).toMatchObject({ is_saved: false, user_id: 'alice' });
      expect(await save('alice', 'c', 'm1')).toMatchObject({ indexed: true });
    });

    it('SAVE-SAVE-07, SAVE-SAVE-10: a tombstoned message answers deleted, also when it was saved before', async () => {
      await saveNew('u1', 'c', 'm1', 'saved then removed');
      await tombstoneTurn(storage(), { namespace: ns, thread_id: 'c', msg_id: 'm1' }, loom.gateway.runtime.plane.fence);
      expect(await save('u1', 'c', 'm1')).toMatchObject({ indexed: false, reason: 'deleted' });
    });

    it('SAVE-SAVE-08: a stored system or tool turn answers unsupported_role and gets no embedding row', async () => {
      await loom.record(ns);
      await append('c', 'sys', 'you are a helpful assistant', { role: 'system' });
      await append('c', 'tool', '{"rows": 3}', { role: 'tool' });
      expect(await save('u1', 'c', 'sys')).toMatchObject({ indexed: false, reason: 'unsupported_role' });
      expect(await save('u1', 'c', 'tool')).toMatchObject({ indexed: false, reason: 'unsupported_role' });
      expect(await vectors('c', 'sys')).toEqual([]);
      expect(await vectors('c', 'tool')).toEqual([]);
    });

    it('SAVE-SAVE-09, CONV-SENS-13: a high text answers high_sensitivity, writes no embedding row, and a new one is not stored', async () => {
      const sent = provider.received.length;
      expect(await saveNew('u1', 'c', 'h1', HIGH)).toMatchObject({ indexed: false, reason: 'high_sensitivity', saved: false });
      expect(await transcript('c', 'h1')).toEqual([]);
      expect(await vectors('c', 'h1')).toEqual([]);
      expect(provider.received.slice(sent).join()).not.toContain('Hunter2');
      await loom.record(ns);
      await append('c', 'h2', HIGH);
      expect(await save('u1', 'c', 'h2')).toMatchObject({ indexed: false, reason: 'high_sensitivity' });
      expect((await transcript('c', 'h2'))[0]!.is_saved).toBe(false);
    });

    it('SAVE-SAVE-11, SAVE-RETRY-03, SAVE-RETRY-05: a failed embed still saves (embed_failed); saving again retries the embed and it becomes a vector hit', async () => {
      provider.failing = true;
      expect(await saveNew('u1', 'c', 'm1', 'The kestrel migration runs on Fridays.')).toMatchObject({ indexed: false, reason: 'embed_failed', saved: true });
      expect((await transcript('c', 'm1'))[0]!.is_saved).toBe(true);
      expect((await vectors('c', 'm1'))[0]!.embed_error).not.toBe('');
      provider.failing = false;
      expect(hitIds(await search('u1', 'kestrel migration Fridays', { search_mode: 'semantic' }))).toEqual([]);
      expect(await save('u1', 'c', 'm1')).toMatchObject({ indexed: true });
      expect(hitIds(await search('u1', 'kestrel migration Fridays', { search_mode: 'semantic' }))).toEqual(['m1']);
    });

    it('SAVE-RETRY-01, SAVE-OWN-02, SAVE-OWN-03: concurrent saves of one new message leave one row; of two users saving an unowned row, exactly one claims it (the claim is checked and written under the thread lease)', async () => {
      const same = await Promise.all(Array.from({ length: 10 }, () => saveNew('u1', 'c', 'm1', 'one message, saved ten times at once')));
      expect(same.every((r) => r.indexed)).toBe(true);
      expect(await transcript('c', 'm1')).toHaveLength(1);
      expect(await vectors('c', 'm1')).toHaveLength(1);
      await loom.record(ns);
      await append('c', 'unowned', 'a turn nobody owns yet');
      const race = await Promise.all([save('alice', 'c', 'unowned'), save('bob', 'c', 'unowned')]);
      expect(race.filter((r) => r.indexed)).toHaveLength(1);
      expect(race.filter((r) => r.reason === 'owner_mismatch')).toHaveLength(1);
      const winner = race[0]!.indexed ? 'alice' : 'bob';
      expect((await transcript('c', 'unowned'))[0]!.user_id).toBe(winner);
    });

    it('SAVE-RETRY-02, SAVE-RETRY-04, SAVE-RETRY-07: a save repairs a missing embedding row and unflagged rows; repeated saves reach one end state', async () => {
      await loom.record(ns);
      await append('c', 'm1', 'a turn whose vector went missing', { user_id: 'u1' });
      // As if an earlier write died between the two inserts: the embedding row is gone.
      const vec = await storage().query<Record<string, unknown>>(
        `SELECT * EXCEPT (version, deleted, deleted_at) FROM ${storage().tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND msg_id = 'm1'`,
        { ns },
      );
      await storage().insert(storage().tables.conversationEmbeddings, vec.map((v) => ({ ...v, deleted: true, deleted_at: formatMillis(), version: nextVersion() })));
      for (let i = 0; i < 3; i++) expect(await save('u1', 'c', 'm1')).toMatchObject({ indexed: true });
      expect(await transcript('c', 'm1')).toEqual([expect.objectContaining({ is_saved: true })]);
      expect(await vectors('c', 'm1')).toEqual([expect.objectContaining({ is_saved: true, deleted: false, embed_error: '' })]);
      // An unflagged embedding row (a flag write that never landed) is flagged by the next save.
      const [live] = await storage().query<Record<string, unknown>>(
        `SELECT * EXCEPT (version, is_saved) FROM ${storage().tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND msg_id = 'm1'`,
        { ns },
      );
      await storage().insert(storage().tables.conversationEmbeddings, [{ ...live, is_saved: false, version: nextVersion() }]);
      await save('u1', 'c', 'm1');
      expect((await vectors('c', 'm1'))[0]!.is_saved).toBe(true);
    });

    it('SAVE-RETRY-06, SAVE-OWN-04: an append whose vector lands after a concurrent save flags its own embedding row', async () => {
      await loom.record(ns);
      provider.hold();
      const called = provider.whenCalled();
      const pending = append('c', 'm1', 'saved while its vector was being made', { user_id: 'u1' });
      await called;
      try {
        const saving = save('u1', 'c', 'm1');
        await new Promise((r) => setTimeout(r, 100));
        provider.release();
        expect((await saving).saved).toBe(true);
      } finally {
        provider.release();
      }
      expect(await pending).toMatchObject({ stored: true });
      expect(await vectors('c', 'm1')).toEqual([expect.objectContaining({ is_saved: true, deleted: false })]);
      expect(hitIds(await search('u1', 'saved while its vector was being made', { search_mode: 'semantic' }))).toEqual(['m1']);
    });
  });

  describe('search_saved_messages', () => {
    const seed = async () => {
      await saveNew('u1', 'c1', 'ledger', 'We moved the invoices to the new ledger last week.');
      await saveNew('u1', 'c1', 'deep', 'Long answer. ' + 'Filler about nothing in particular. '.repeat(300) + 'Run the ZX-4417 backfill against tbl_invoice_archive afterwards.');
      await saveNew('u1', 'c2', 'lunch', 'Lunch is at noon on Thursdays.');
      await saveNew('u2', 'c1', 'other', 'Other user: invoices ledger ZX-4417 tbl_invoice_archive.');
    };

    it('SAVE-SEARCH-01, SAVE-SEARCH-02, SAVE-SEARCH-03: viewer; only this user\'s saved messages in the one namespace named, never unsaved turns or other namespaces', async () => {
      await seed();
      await loom.record(ns);
      await append('c1', 'unsaved', 'invoices ledger ZX-4417 unsaved turn', { user_id: 'u1' });
      const otherNs = uniqueNamespace();
      await loom.admin.ok('conversation.save_message', { namespace: otherNs, user_id: 'u1', conversation_id: 'c1', message_id: 'elsewhere', role: 'user', content: 'invoices ledger ZX-4417 elsewhere' });
      const viewer = await loom.as(ns, 'viewer');
      const r = await ok('conversation.search_saved_messages', { user_id: 'u1', query: 'invoices ledger ZX-4417' }, viewer);
      expect(hitIds(r).sort()).toEqual(['deep', 'ledger']);
    });

    it('SAVE-SEARCH-04, SAVE-SEARCH-05, SAVE-SEARCH-06, CONV-EMBED-10: a token at character 10,000 is found by lexical and hybrid, not semantic (which embeds the first 2,048 characters)', async () => {
      await seed();
      const r = await search('u1', 'ZX-4417');
      expect(r.mode).toBe('hybrid');
      expect(hitIds(r)[0]).toBe('deep');
      expect(hitIds(await search('u1', 'ZX-4417', { search_mode: 'lexical' }))).toEqual(['deep']);
      const semantic = await search('u1', 'ZX-4417 tbl_invoice_archive', { search_mode: 'semantic' });
      expect(hitIds(semantic)).not.toContain('deep');
      const deep = (await vectors('c1', 'deep'))[0]!;
      expect(Number(deep.dims)).toBeGreaterThan(0);
      const [text] = await storage().query<{ n: string }>(`SELECT lengthUTF8(text) AS n FROM ${storage().tables.conversationEmbeddings} FINAL WHERE namespace = {ns:String} AND msg_id = 'deep'`, { ns });
      expect(Number(text!.n)).toBe(2048);
    });

    it('SAVE-SEARCH-07, SAVE-SEARCH-09: an exact identifier deep in a long answer ranks it, and the excerpt is centred on the match', async () => {
      await seed();
      const [hit] = (await search('u1', 'tbl_invoice_archive')).hits;
      expect(hit).toMatchObject({ message_id: 'deep', conversation_id: 'c1' });
      expect(hit.excerpt).toContain('tbl_invoice_archive');
      expect(hit.excerpt).not.toContain('Long answer.');
      expect(Array.from(hit.excerpt)).toHaveLength(240);
    });

    it('SAVE-SEARCH-08: lexical_weight 0 makes the BM25 leg add nothing; raising it raises the lexical match', async () => {
      await saveNew('u1', 'c', 'semantic-match', 'invoices ledger invoices ledger moved');
      await saveNew('u1', 'c', 'lexical-match', 'unrelated words but the code QK-9981 appears here once');
      const zero = await search('u1', 'QK-9981 invoices', { lexical_weight: 0 });
      expect(zero.hits.every((h: { matched: string[] }) => h.matched.includes('semantic'))).toBe(true);
      const rank = (r: { hits: Array<{ message_id: string }> }) => hitIds(r).indexOf('lexical-match');
      const low = await search('u1', 'QK-9981 invoices', { lexical_weight: 0.05 });
      const high = await search('u1', 'QK-9981 invoices', { lexical_weight: 0.95 });
      const lowScore = low.hits.find((h: { message_id: string }) => h.message_id === 'lexical-match')?.score ?? 0;
      const highScore = high.hits.find((h: { message_id: string }) => h.message_id === 'lexical-match')!.score;
      expect(highScore).toBeGreaterThan(lowScore);
      expect(rank(high)).toBe(0);
      expect((await op('conversation.search_saved_messages', { user_id: 'u1', query: 'x', lexical_weight: 1.5 })).status).toBe(400);
    });

    it('SAVE-SEARCH-10: another user\'s saved messages never change this user\'s scores', async () => {
      await saveNew('u1', 'c', 'a', 'the ledger export runs nightly');
      await saveNew('u1', 'c', 'b', 'lunch at noon');
      const before = (await search('u1', 'ledger export', { search_mode: 'lexical' })).hits;
      for (let i = 0; i < 5; i++) await saveNew('u2', 'c', `o${i}`, `ledger ledger export ${i}`);
      const after = (await search('u1', 'ledger export', { search_mode: 'lexical' })).hits;
      expect(after).toEqual(before);
    });

    it('SAVE-SEARCH-11, CONV-SENS-14: tombstoned, unsaved, failed-embed (vector leg) and legacy high saved messages are never hits, in any mode', async () => {
      await saveNew('u1', 'c', 'live', 'the quetzal ledger note');
      await saveNew('u1', 'c', 'gone', 'the quetzal ledger tombstoned');
      await tombstoneTurn(storage(), { namespace: ns, thread_id: 'c', msg_id: 'gone' });
      provider.failing = true;
      await saveNew('u1', 'c', 'failed', 'the quetzal ledger failed embed');
      provider.failing = false;
      // A high message an earlier build saved (this build refuses to save one).
      await storage().insert(storage().tables.conversations, [legacyRow(ns, 'c', 'legacy-high', `quetzal ledger ${HIGH}`)]);
      for (const mode of ['hybrid', 'semantic', 'lexical']) {
        const ids = hitIds(await search('u1', 'quetzal ledger', { search_mode: mode }));
        expect(ids).not.toContain('gone');
        expect(ids).not.toContain('legacy-high');
        if (mode === 'semantic') expect(ids).not.toContain('failed');
        expect(ids).toContain('live');
      }
      expect(hitIds(await search('u1', 'Hunter2Staging', { search_mode: 'lexical' }))).toEqual([]);
    });

    const savedTerms = (where: string) =>
      storage()
        .query<{ n: string }>(`SELECT count() AS n FROM ${storage().tables.savedTerms} FINAL WHERE namespace = {ns:String} AND ${where}`, { ns })
        .then((r) => Number(r[0]!.n));

    it('[issue 10: saved search in the engine] the index holds postings for saved messages only; a user\'s recorded turns cost one header row each', async () => {
      await loom.record(ns);
      await append('c', 'recorded', 'the pelican rollout notes', { user_id: 'u1' });
      await append('c', 'anonymous', 'the pelican rollout notes again');
      expect(await savedTerms("term = ''")).toBe(1);
      expect(await savedTerms("term != ''")).toBe(0);
      await save('u1', 'c', 'recorded');
      expect(await savedTerms("term = 'pelican' AND user_id = 'u1'")).toBe(1);
      expect(hitIds(await search('u1', 'pelican', { search_mode: 'lexical' }))).toEqual(['recorded']);
    });

    it('[issue 10: saved search in the engine] a message saved again with other text is found by its new words only (postings count at the header\'s version)', async () => {
      await saveNew('u1', 'c', 'm', 'alpha bravo ledger');
      await ok('conversation.unsave_message', { user_id: 'u1', conversation_id: 'c', message_id: 'm' });
      await saveNew('u1', 'c', 'm', 'charlie delta ledger');
      for (const mode of ['lexical', 'hybrid']) {
        expect(hitIds(await search('u1', 'alpha', { search_mode: mode }))).toEqual([]);
        expect(hitIds(await search('u1', 'charlie', { search_mode: mode }))).toEqual(['m']);
      }
    });

    it('[issue 10: saved search in the engine] conversation_id narrows both legs; BM25 statistics are those of the narrowed corpus, as before', async () => {
      await saveNew('u1', 'c1', 'a', 'the ledger export runs nightly');
      await saveNew('u1', 'c2', 'b', 'the ledger import runs weekly');
      await saveNew('u1', 'c2', 'c', 'lunch at noon');
      for (const mode of ['lexical', 'hybrid', 'semantic']) {
        expect(hitIds(await search('u1', 'ledger runs', { search_mode: mode, conversation_id: 'c2' }))).toEqual(['b']);
      }
      const narrowed = (await search('u1', 'ledger', { search_mode: 'lexical', conversation_id: 'c2' })).hits[0].score;
      const whole = (await search('u1', 'ledger', { search_mode: 'lexical' })).hits.find((h: { message_id: string }) => h.message_id === 'b').score;
      expect(narrowed).not.toBe(whole);
    });

    it('[issue 10: saved search in the engine] a person\'s erasure drops their saved messages from search; a purge removes their index rows', async () => {
      await saveNew('u1', 'c', 'm', 'the cormorant budget');
      await ok('erasure.request', { user_id: 'u1' });
      expect(hitIds(await search('u1', 'cormorant', { search_mode: 'lexical' }))).toEqual([]);
      expect(hitIds(await search('u1', 'cormorant budget'))).toEqual([]);
      await saveNew('u2', 'c', 'n', 'the cormorant budget');
      expect(await savedTerms('1')).toBeGreaterThan(0);
      await ok('erasure.request', { namespace_list: [ns], purge: true });
      expect(await savedTerms('1')).toBe(0);
    });

    it('[issue 10: saved search speed] the kept corpus and statistics follow every write between two searches: save, unsave, re-save with other text, tombstone', async () => {
      await saveNew('u1', 'c', 'a', 'the gannet rollout plan');
      await saveNew('u1', 'c', 'b', 'lunch at noon');
      const scores = async (q: string) => (await search('u1', q, { search_mode: 'lexical' })).hits.map((h: { message_id: string; score: number }) => [h.message_id, h.score]);
      expect((await scores('gannet')).map(([m]: [string]) => m)).toEqual(['a']);
      const alone = await scores('gannet');
      // A second message with the word changes its document frequency, so the first one's score.
      await saveNew('u1', 'c', 'd', 'gannet notes');
      const both = await scores('gannet');
      expect(both.map(([m]: [string]) => m).sort()).toEqual(['a', 'd']);
      expect(both.find(([m]: [string]) => m === 'a')[1]).not.toBe(alone[0][1]);
      await ok('conversation.unsave_message', { user_id: 'u1', conversation_id: 'c', message_id: 'd' });
      expect(await scores('gannet')).toEqual(alone);
      await saveNew('u1', 'c', 'd', 'petrel notes');
      expect((await scores('petrel')).map(([m]: [string]) => m)).toEqual(['d']);
      // Its old words count no more: only 'a' holds the word.
      expect((await scores('gannet')).map(([m]: [string]) => m)).toEqual(['a']);
      for (const mode of ['semantic', 'hybrid']) expect(hitIds(await search('u1', 'the gannet rollout plan', { search_mode: mode }))).toContain('a');
      await tombstoneTurn(storage(), { namespace: ns, thread_id: 'c', agent: 'default', msg_id: 'a' });
      for (const mode of ['lexical', 'semantic', 'hybrid']) expect(hitIds(await search('u1', 'the gannet rollout plan', { search_mode: mode }))).not.toContain('a');
    });

    it('AMBIGUOUS(embedder down): the lexical leg alone answers a hybrid or semantic call', async () => {
      await seed();
      await loom.stopEmbedder();
      try {
        const r = await search('u1', 'ZX-4417');
        expect(r.mode).toBe('lexical');
        expect(hitIds(r)).toEqual(['deep']);
        const semantic = await search('u1', 'ZX-4417', { search_mode: 'semantic' });
        expect(semantic.mode).toBe('lexical');
        expect(hitIds(semantic)).toEqual(['deep']);
      } finally {
        await loom.startEmbedder();
      }
    });
  });

  describe('list_saved_messages and saved_status', () => {
    it('SAVE-LIST-01, SAVE-LIST-04: viewer, no query, newest saved first, ts is the save time', async () => {
      await loom.record(ns);
      await append('c', 'old', 'an old message saved last', { user_id: 'u1' });
      await saveNew('u1', 'c', 'first', 'saved first');
      await new Promise((r) => setTimeout(r, 5));
      await save('u1', 'c', 'old');
      const viewer = await loom.as(ns, 'viewer');
      const { messages } = await ok('conversation.list_saved_messages', { user_id: 'u1' }, viewer);
      expect(messages.map((m: { message_id: string }) => m.message_id)).toEqual(['old', 'first']);
      expect(messages[0].ts > messages[0].message_ts).toBe(true);
    });

    it('SAVE-LIST-02, SAVE-LIST-03: limit goes up to 200 (more is a 400, see the validation suite), the cursor pages each message exactly once, conversation_id narrows', async () => {
      for (let i = 0; i < 7; i++) await saveNew('u1', i % 2 ? 'odd' : 'even', `m${i}`, `message ${i}`);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await list('u1', { limit: 3, ...(cursor ? { cursor } : {}) });
        seen.push(...page.messages.map((m: { message_id: string }) => m.message_id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(seen.sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);
      expect((await list('u1', { limit: 200 })).messages).toHaveLength(7);
      expect((await list('u1', { conversation_id: 'odd' })).messages.map((m: { message_id: string }) => m.message_id).sort()).toEqual(['m1', 'm3', 'm5']);
    });

    it('SAVE-LIST-05: a saved row with no save time (an earlier build) uses its message time', async () => {
      await storage().insert(storage().tables.conversations, [{ ...legacyRow(ns, 'c', 'legacy', 'saved by an earlier build'), saved_at: null }]);
      const [item] = (await list('u1')).messages;
      expect(item).toMatchObject({ message_id: 'legacy' });
      expect(item.ts).toBe(item.message_ts.slice(0, 23) + 'Z');
    });

    it('SAVE-LIST-06: excerpts follow conversation_search_excerpt_chars, live', async () => {
      await saveNew('u1', 'c', 'long', 'z'.repeat(1000));
      expect((await list('u1')).messages[0].excerpt).toHaveLength(240);
      await loom.admin.ok('settings.set', { key: 'conversation_search_excerpt_chars', value: 50 });
      try {
        expect((await list('u1')).messages[0].excerpt).toHaveLength(50);
      } finally {
        await loom.admin.ok('settings.set', { key: 'conversation_search_excerpt_chars', value: 240 });
      }
    });

    it('SAVE-LIST-07, CONV-SENS-15: a legacy high saved message is listed with an empty excerpt (a shape within the shown characters plus 1,024)', async () => {
      await storage().insert(storage().tables.conversations, [
        legacyRow(ns, 'c', 'legacy-high', HIGH),
        legacyRow(ns, 'c', 'high-later', 'x'.repeat(900) + ' ' + HIGH),
        legacyRow(ns, 'c', 'high-far', 'y'.repeat(2_000) + ' ' + HIGH),
      ]);
      const byId = Object.fromEntries((await list('u1')).messages.map((m: { message_id: string; excerpt: string }) => [m.message_id, m.excerpt]));
      expect(byId['legacy-high']).toBe('');
      expect(byId['high-later']).toBe('');
      expect(byId['high-far']).toBe('y'.repeat(240));
    });

    it('SAVE-STATUS-01, SAVE-STATUS-02, SAVE-STATUS-03: one call answers up to 500 ids; another user\'s saves read as not saved', async () => {
      await saveNew('u1', 'c', 'a', 'mine');
      await saveNew('u2', 'c', 'b', 'theirs');
      const ids = ['a', 'b', ...Array.from({ length: 498 }, (_, i) => `x${i}`)];
      const viewer = await loom.as(ns, 'viewer');
      const { saved } = await ok('conversation.saved_status', { user_id: 'u1', conversation_id: 'c', message_ids: ids }, viewer);
      expect(Object.keys(saved)).toHaveLength(500);
      expect(saved.a).toBe(true);
      expect(saved.b).toBe(false);
      const tooMany = await op('conversation.saved_status', { user_id: 'u1', conversation_id: 'c', message_ids: [...ids, 'one-more'] });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.error.fields[0].field).toBe('message_ids');
    });
  });

  describe('unsave_message', () => {
    const unsave = (user: string, id: string, api?: LoomApi) => ok('conversation.unsave_message', { user_id: user, conversation_id: 'c', message_id: id }, api);

    it('SAVE-UNSAVE-01: needs the writer role', async () => {
      await saveNew('u1', 'c', 'm', 'x');
      const viewer = await loom.as(ns, 'viewer');
      expect((await op('conversation.unsave_message', { user_id: 'u1', conversation_id: 'c', message_id: 'm' }, viewer)).status).toBe(403);
    });

    it('SAVE-UNSAVE-02, SAVE-UNSAVE-04: recording on, the turn stays in the transcript unflagged; saved search and listing drop it, and its vector keeps a newer version', async () => {
      await loom.record(ns);
      await append('c', 'm', 'the heron rollout plan', { user_id: 'u1' });
      await save('u1', 'c', 'm');
      expect(await unsave('u1', 'm')).toEqual({ found: true, removed: false, conversation_id: 'c', message_id: 'm' });
      expect((await ok('conversation.get', { thread_id: 'c', include_messages: true })).messages.map((t: { msg_id: string }) => t.msg_id)).toEqual(['m']);
      expect(hitIds(await search('u1', 'heron rollout'))).toEqual([]);
      expect((await list('u1')).messages).toEqual([]);
      expect(await vectors('c', 'm')).toEqual([expect.objectContaining({ is_saved: false, deleted: false })]);
    });

    it('SAVE-UNSAVE-03, SAVE-UNSAVE-04, SAVE-UNSAVE-07: recording off, the turn is removed (removed: true) and its vector tombstoned; saving again restores it', async () => {
      await saveNew('u1', 'c', 'm', 'the osprey deploy checklist');
      expect(await unsave('u1', 'm')).toMatchObject({ found: true, removed: true });
      expect(await transcript('c', 'm')).toEqual([]);
      expect(await vectors('c', 'm')).toEqual([expect.objectContaining({ deleted: true, is_saved: false })]);
      expect(hitIds(await search('u1', 'osprey deploy checklist'))).toEqual([]);
      expect(await saveNew('u1', 'c', 'm', 'the osprey deploy checklist')).toMatchObject({ indexed: true });
      expect(hitIds(await search('u1', 'osprey deploy checklist'))).toEqual(['m']);
      expect(await vectors('c', 'm')).toEqual([expect.objectContaining({ deleted: false, is_saved: true })]);
    });

    it('SAVE-UNSAVE-05, SAVE-UNSAVE-06: never saved, another user\'s, or already unsaved all answer found: false, identically', async () => {
      await saveNew('u2', 'c', 'theirs', 'not yours');
      await loom.record(ns);
      await append('c', 'plain', 'never saved', { user_id: 'u1' });
      const a = await unsave('u1', 'theirs');
      const b = await unsave('u1', 'plain');
      expect(a).toEqual({ found: false, conversation_id: 'c', message_id: 'theirs' });
      expect({ ...b, message_id: 'theirs' }).toEqual(a);
      await saveNew('u1', 'c', 'twice', 'unsave me twice');
      await unsave('u1', 'twice');
      expect(await unsave('u1', 'twice')).toMatchObject({ found: false });
      expect((await transcript('c', 'theirs'))[0]!.is_saved).toBe(true);
    });
  });

  describe('scoped tokens', () => {
    it('SAVE-TOKEN-01, SAVE-TOKEN-02, SAVE-TOKEN-03: an own_user token pinned to one user works on every saved op, acts as that user, and refuses another user_id with 403', async () => {
      const pinned = await loom.as(ns, 'writer', { read_scope: 'own_user', read_user_id: 'u1' });
      await saveNew('u2', 'c', 'theirs', 'the albatross budget');
      expect(await ok('conversation.save_message', { conversation_id: 'c', message_id: 'mine', role: 'user', content: 'the albatross plan' }, pinned)).toMatchObject({ indexed: true });
      expect((await transcript('c', 'mine'))[0]!.user_id).toBe('u1');
      const found = await ok('conversation.search_saved_messages', { query: 'albatross' }, pinned);
      expect(hitIds(found)).toEqual(['mine']);
      expect((await ok('conversation.list_saved_messages', {}, pinned)).messages).toHaveLength(1);
      expect((await ok('conversation.saved_status', { conversation_id: 'c', message_ids: ['mine', 'theirs'] }, pinned)).saved).toEqual({ mine: true, theirs: false });
      expect(await ok('conversation.unsave_message', { conversation_id: 'c', message_id: 'mine' }, pinned)).toMatchObject({ found: true });
      const asOther: Record<string, Record<string, unknown>> = {
        'conversation.search_saved_messages': { query: 'albatross' },
        'conversation.list_saved_messages': {},
        'conversation.saved_status': { conversation_id: 'c', message_ids: ['theirs'] },
        'conversation.save_message': { conversation_id: 'c', message_id: 'theirs' },
        'conversation.unsave_message': { conversation_id: 'c', message_id: 'theirs' },
      };
      for (const [name, body] of Object.entries(asOther)) {
        const r = await op(name, { user_id: 'u2', ...body }, pinned);
        expect([name, r.status]).toEqual([name, 403]);
      }
      expect((await transcript('c', 'theirs'))[0]).toMatchObject({ user_id: 'u2', is_saved: true });
    });

    it('SAVE-TOKEN-04: an end-user token (pinned to one user) calls the saved-message ops with namespace "@me"; other tokens cannot', async () => {
      const endUser = await loom.as(ns, 'writer', { read_scope: 'own_user', read_user_id: 'u1' });
      const saved = await endUser.call('conversation.save_message', { namespace: '@me', conversation_id: 'c', message_id: 'me', role: 'user', content: 'saved through @me' });
      expect(saved.status).toBe(200);
      expect((await transcript('c', 'me'))[0]).toMatchObject({ user_id: 'u1', is_saved: true });
      const listed = await endUser.call('conversation.list_saved_messages', { namespace: '@me' });
      expect(listed.body.messages.map((m: { message_id: string }) => m.message_id)).toEqual(['me']);
      expect((await loom.admin.call('conversation.list_saved_messages', { namespace: '@me', user_id: 'u1' })).status).toBe(403);
      const writer = await loom.as(ns, 'writer');
      expect((await writer.call('conversation.list_saved_messages', { namespace: '@me', user_id: 'u1' })).status).toBe(403);
    });

    it('SAVE-TOKEN-05: an own_session token is refused by the saved-message ops', async () => {
      const session = await loom.as(ns, 'writer', { read_scope: 'own_session', read_user_id: 'u1', read_session_id: 's1' });
      const r = await op('conversation.list_saved_messages', { user_id: 'u1' }, session);
      expect(r.status).toBe(403);
      expect(r.body.error.message).toMatch(/own_session/);
    });

    it('SAVE-TOKEN-06: an own-user token is refused by every other conversation op', async () => {
      const pinned = await loom.as(ns, 'admin', { read_scope: 'own_user', read_user_id: 'u1' });
      const bodies: Record<string, Record<string, unknown>> = {
        'conversation.append': { thread_id: 't', role: 'user', content: 'x' },
        'conversation.get': { thread_id: 't' },
        'conversation.list': { thread_id: 't' },
        'conversation.search': { query: 'x' },
        'conversation.threads': {},
        'conversation.create': { thread_id: 't2' },
        'conversation.update': { thread_id: 't', title: 'x' },
        'conversation.compact': { thread_id: 't' },
        'conversation.set_logging': { enabled: true },
      };
      for (const [name, body] of Object.entries(bodies)) expect([name, (await op(name, body, pinned)).status]).toEqual([name, 403]);
    });
  });

  it('CONV-COMPACT-13, SAVE-SAVE-12: a turn saved with save_message is never summarised or tombstoned by a compaction, and stays verbatim between the summary and the recent turns', async () => {
    await loom.record(ns);
    for (let i = 0; i < 16; i++) await append('t', `m${String(i).padStart(2, '0')}`, `turn ${i} about the ledger`, { role: i % 2 ? 'assistant' : 'user', user_id: 'u1' });
    await save('u1', 't', 'm03');
    const compacted = await ok('conversation.compact', { thread_id: 't' });
    expect(compacted).toMatchObject({ compacted: true, messages_summarized: 5 });
    const turns = (await ok('conversation.list', { thread_id: 't', limit: 200 })).messages.map((m: { msg_id: string }) => m.msg_id);
    expect(turns.slice(0, 3)).toEqual([compacted.summary_msg_id, 'm03', 'm06']);
    expect(hitIds(await search('u1', 'turn 3 about the ledger'))).toEqual(['m03']);
  });

  it('SAVE-LEASE-01: a save waits while another writer holds the thread lease', async () => {
    const leases = loom.gateway.runtime.plane.threadLeases;
    let release!: () => void;
    const holding = leases.withThread({ namespace: ns, thread_id: 'c' }, () => new Promise<void>((r) => (release = r)));
    let done = false;
    const pending = saveNew('u1', 'c', 'm', 'waits for the lease').then((r) => ((done = true), r));
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    expect(await transcript('c', 'm')).toEqual([]);
    release();
    await holding;
    expect(await pending).toMatchObject({ indexed: true });
  });
});

/** A saved transcript row as an earlier build wrote it: owned by u1, flagged, is_high never set. */
function legacyRow(namespace: string, thread: string, msg: string, content: string): Record<string, unknown> {
  const version = nextVersion();
  const now = formatMillis();
  return {
    namespace,
    thread_id: thread,
    agent: 'default',
    msg_id: msg,
    ts: now + '000',
    role: 'assistant',
    content,
    reasoning: '',
    user_id: 'u1',
    run_id: '',
    metadata: '{}',
    tokens: null,
    is_high: false,
    is_summary: false,
    is_saved: true,
    saved_at: now,
    deleted: false,
    deleted_at: null,
    created_at: now,
    version,
  };
}
