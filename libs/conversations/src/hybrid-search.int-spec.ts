import { ControllableProvider, startTestLoom, uniqueNamespace, type LoomApi, type TestLoom } from '../../testing/src';

type Hit = { namespace: string; thread_id: string; msg_id: string; role: string; run_id: string | null; agent: string; score: number; excerpt: string };

describe('Hybrid search [issue 10]', () => {
  const provider = new ControllableProvider();
  let loom: TestLoom;
  let ns: string;
  let api: LoomApi;
  beforeAll(async () => {
    loom = await startTestLoom({ provider });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
    api = await loom.as(ns, 'writer');
  });
  afterAll(async () => loom.close());
  const append = (body: Record<string, unknown>, as: LoomApi = api) => as.ok('conversation.append', { namespace: ns, ...body });
  const search = (body: Record<string, unknown>, as: LoomApi = api): Promise<{ hits: Hit[]; mode: string }> => as.ok('conversation.search', { namespace: ns, ...body });
  const msgIds = (hits: Hit[]) => hits.map((h) => h.msg_id);
  const storage = () => loom.gateway.runtime.storage;
  /** Live postings of a namespace, header rows included (term ''). */
  const postings = async (namespace: string, term?: string) => {
    const s = storage();
    const rows = await s.query<{ n: string }>(
      `SELECT count() AS n FROM ${s.tables.conversationTerms} FINAL WHERE namespace = {ns:String} AND deleted = 0 ${term === undefined ? '' : 'AND term = {term:String}'}`,
      { ns: namespace, term: term ?? '' },
    );
    return Number(rows[0]!.n);
  };

  it('CONV-SEARCH-10 [issue 10: modes] hybrid is the default, each mode answers with its name, and the default is a live setting', async () => {
    await append({ thread_id: 't', role: 'user', msg_id: 'm1', content: 'the invoice export job is failing again' });
    await append({ thread_id: 't', role: 'assistant', msg_id: 'm2', content: 'restart the ledger worker first' });
    expect((await search({ query: 'invoice export failing' })).mode).toBe('hybrid');
    expect((await search({ query: 'invoice export failing', search_mode: 'vector' })).mode).toBe('vector');
    const lexical = await search({ query: 'invoice export failing', search_mode: 'lexical' });
    expect(lexical.mode).toBe('lexical');
    expect(msgIds(lexical.hits)).toEqual(['m1']);
    expect(lexical.hits[0]!.score).toBeGreaterThan(0);
    await loom.admin.ok('settings.set', { key: 'conversation_search_default_mode', value: 'vector' });
    try {
      expect((await search({ query: 'invoice export failing' })).mode).toBe('vector');
      expect((await loom.admin.ok('settings.get', {})).conversation_search_default_mode).toBe('vector');
    } finally {
      await loom.admin.ok('settings.set', { key: 'conversation_search_default_mode', value: 'hybrid' });
    }
    const bad = await loom.admin.call('settings.set', { key: 'conversation_search_default_mode', value: 'fuzzy' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields[0].field).toBe('value');
  });

  it('CONV-SEARCH-11 [issue 10: whole text] lexical and hybrid find an identifier past the first 2,048 characters, with the excerpt around it', async () => {
    const content = 'background notes on the billing system. '.repeat(60) + ' The failing ticket is BILL-77123 and nothing else.';
    await append({ thread_id: 't', role: 'assistant', msg_id: 'long', content });
    // In another thread: a turn next to a hybrid hit would be a hit too (its neighbour's share).
    await append({ thread_id: 'u', role: 'user', msg_id: 'other', content: 'an unrelated turn about lunch' });
    for (const mode of ['lexical', 'hybrid']) {
      const result = await search({ query: 'BILL-77123', search_mode: mode });
      expect(result.mode).toBe(mode);
      expect(msgIds(result.hits)).toEqual(['long']);
      expect(result.hits[0]!.excerpt).toContain('BILL-77123');
      expect(Array.from(result.hits[0]!.excerpt).length).toBe(240);
    }
    expect((await search({ query: 'BILL-77123', search_mode: 'vector' })).hits).toEqual([]);
  });

  it('CONV-SEARCH-12 [issue 10: tokens serve code] identifiers by their parts, file names and flags by exact text, any case, any letters', async () => {
    await append({ thread_id: 't', role: 'assistant', msg_id: 'camel', content: 'The bug was in parseJsonBody when the stream ended early.' });
    await append({ thread_id: 't', role: 'assistant', msg_id: 'snake', content: 'It raised ERR_CONNECTION_REFUSED from the proxy.' });
    await append({ thread_id: 't', role: 'user', msg_id: 'path', content: 'Look at src/app/main.ts line 42.' });
    await append({ thread_id: 't', role: 'user', msg_id: 'flag', content: 'Run node with --max-old-space-size=4096 to get past it.' });
    await append({ thread_id: 't', role: 'user', msg_id: 'unicode', content: 'Die Überprüfung der Straße ist fertig.' });
    const lexical = async (query: string) => msgIds((await search({ query, search_mode: 'lexical' })).hits);
    expect(await lexical('json body')).toEqual(['camel']);
    expect(await lexical('parseJsonBody')).toEqual(['camel']);
    expect(await lexical('connection refused')).toEqual(['snake']);
    expect(await lexical('err_connection_refused')).toEqual(['snake']);
    expect(await lexical('main.ts')).toEqual(['path']);
    expect(await lexical('src/app/main.ts')).toEqual(['path']);
    expect(await lexical('--max-old-space-size')).toEqual(['flag']);
    expect(await lexical('ÜBERPRÜFUNG')).toEqual(['unicode']);
    // The whole identifier ranks above a turn holding only one of its parts.
    await append({ thread_id: 't', role: 'user', msg_id: 'part', content: 'parse the body of the form' });
    expect((await lexical('parseJsonBody'))[0]).toBe('camel');
  });

  it('CONV-SEARCH-13 [issue 10: embedder down] hybrid answers from the BM25 leg alone; vector keeps the substring fallback', async () => {
    await append({ thread_id: 't', role: 'user', msg_id: 'm1', content: 'Deploy ZEPHYR now' });
    await append({ thread_id: 't', role: 'assistant', msg_id: 'm2', content: 'nothing to see' });
    await loom.stopEmbedder();
    try {
      const hybrid = await search({ query: 'zephyr deploy' });
      expect(hybrid.mode).toBe('lexical');
      expect(msgIds(hybrid.hits)).toEqual(['m1']);
      expect((await search({ query: 'zephyr', search_mode: 'vector' })).mode).toBe('substring');
      expect((await search({ query: 'zephyr', search_mode: 'lexical' })).mode).toBe('lexical');
    } finally {
      await loom.startEmbedder();
    }
  });

  it('CONV-SEARCH-14 [issue 10: filters] the lexical leg obeys thread, run, role and agent filters and spans every namespace the caller may read', async () => {
    await append({ thread_id: 'a', role: 'user', msg_id: 'a1', content: 'ledger migration plan', run_id: 'r1' });
    await append({ thread_id: 'a', role: 'assistant', msg_id: 'a2', content: 'ledger migration plan approved', run_id: 'r2' });
    await append({ thread_id: 'b', role: 'user', msg_id: 'b1', content: 'ledger migration plan for b', run_id: 'r1' });
    await append({ thread_id: 'b', role: 'user', msg_id: 'c1', content: 'ledger migration plan from codex', agent: 'codex' });
    for (const mode of ['lexical', 'hybrid']) {
      const found = async (filters: Record<string, unknown>) => msgIds((await search({ query: 'ledger migration plan', search_mode: mode, ...filters })).hits).sort();
      expect(await found({})).toEqual(['a1', 'a2', 'b1']);
      expect(await found({ thread_id: 'a' })).toEqual(['a1', 'a2']);
      expect(await found({ run_id: 'r1' })).toEqual(['a1', 'b1']);
      expect(await found({ role: 'assistant' })).toEqual(['a2']);
      expect(await found({ agent: 'codex' })).toEqual(['c1']);
      expect(await found({ agent: '*' })).toEqual(['a1', 'a2', 'b1', 'c1']);
    }
    const other = uniqueNamespace();
    await loom.record(other);
    await loom.admin.ok('conversation.append', { namespace: other, thread_id: 't', role: 'user', msg_id: 'o1', content: 'ledger migration plan elsewhere' });
    const everywhere = await loom.admin.ok('conversation.search', { namespace: ns, query: 'ledger migration elsewhere', search_mode: 'lexical' });
    expect(everywhere.hits.map((h: Hit) => h.namespace)).toContain(other);
    const scoped = await search({ query: 'ledger migration elsewhere', search_mode: 'lexical' }, await loom.as(ns, 'viewer'));
    expect(scoped.hits.map((h) => h.namespace)).toEqual([ns, ns, ns]);
  });

  it('CONV-SEARCH-15 [issue 10: per-namespace statistics] a turn scores the same whatever other namespaces hold or the search covers', async () => {
    const texts = ['retry the flaky upload test', 'the upload bucket is in eu-west-1', 'lunch at noon'];
    for (const [i, content] of texts.entries()) await append({ thread_id: 't', role: 'user', msg_id: `m${i}`, content });
    const before = (await search({ query: 'flaky upload', search_mode: 'lexical' })).hits;
    const other = uniqueNamespace();
    await loom.record(other);
    for (let i = 0; i < 5; i += 1) await loom.admin.ok('conversation.append', { namespace: other, thread_id: 't', role: 'user', content: `upload number ${i}` });
    const after = (await loom.admin.ok('conversation.search', { namespace: ns, query: 'flaky upload', search_mode: 'lexical' })).hits.filter((h: Hit) => h.namespace === ns);
    expect(after.map((h: Hit) => [h.msg_id, h.score])).toEqual(before.map((h) => [h.msg_id, h.score]));
    expect(await postings(ns, '')).toBe(3);
  });

  it('CONV-SEARCH-16 [issue 10: bad input] unknown mode and lexical_weight out of range are refused by name; stopword queries find nothing; long queries are refused with the limit', async () => {
    await append({ thread_id: 't', role: 'user', content: 'the and of which' });
    const mode = await api.call('conversation.search', { namespace: ns, query: 'x', search_mode: 'fuzzy' });
    expect(mode.status).toBe(400);
    expect(mode.body.error.fields[0].field).toBe('search_mode');
    expect(mode.body.error.fields[0].message).toContain('fuzzy');
    for (const weight of [-0.1, 1.5, 'half']) {
      const refused = await api.call('conversation.search', { namespace: ns, query: 'x', lexical_weight: weight });
      expect(refused.status).toBe(400);
      expect(refused.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['lexical_weight']);
    }
    for (const query of ['the and of which', '?!... ---']) {
      for (const search_mode of ['hybrid', 'lexical']) expect(await search({ query, search_mode })).toEqual({ hits: [], mode: search_mode });
    }
    const long = await api.call('conversation.search', { namespace: ns, query: 'x'.repeat(4097) });
    expect(long.status).toBe(400);
    expect(long.body.error.fields[0].field).toBe('query');
    expect(long.body.error.fields[0].message).toContain('4096');
  });

  it('CONV-SEARCH-17 [issue 10: high queries] a query that reads as high never reaches the embedder and never echoes the secret', async () => {
    const secret = 'sk-ant-api03-' + 'AbCdEf012345'.repeat(6);
    await append({ thread_id: 't', role: 'user', msg_id: 'plain', content: 'the anthropic api key was rotated' });
    await append({ thread_id: 't', role: 'user', msg_id: 'high', content: `my key is ${secret} do not share` });
    const sent = provider.received.length;
    for (const search_mode of ['hybrid', 'lexical', 'vector']) {
      const result = await search({ query: `anthropic key ${secret}`, search_mode });
      expect(JSON.stringify(result)).not.toContain(secret);
      expect(msgIds(result.hits)).not.toContain('high');
    }
    expect(provider.received.slice(sent).some((t) => t.includes(secret))).toBe(false);
    expect((await search({ query: `anthropic key ${secret}` })).mode).toBe('lexical');
  });

  it('CONV-SEARCH-18 [issue 10: what is indexed] high, system and tool turns have no postings', async () => {
    await append({ thread_id: 't', role: 'tool', content: 'toolword output' });
    await append({ thread_id: 't', role: 'system', content: 'systemword prompt' });
    await append({ thread_id: 't', role: 'user', content: 'secret sk-ant-api03-' + 'AbCdEf012345'.repeat(6) + ' highword' });
    await append({ thread_id: 't', role: 'user', content: 'plainword here' });
    for (const word of ['toolword', 'systemword', 'highword', 'abcdef012345']) expect(await postings(ns, word)).toBe(0);
    expect(await postings(ns, 'plainword')).toBe(1);
    expect(await postings(ns, '')).toBe(1);
  });

  it('CONV-SEARCH-19 [issue 10: lexical_weight] weight 1 ranks as the BM25 leg alone, weight 0 as the vector leg alone', async () => {
    const words = ['zephyr', 'quokka', 'saffron', 'tundra', 'obelisk', 'marimba', 'glacier', 'pylon'];
    // One turn per thread: no turn has a neighbour to share a score with, so only the legs rank.
    for (let i = 0; i < 24; i += 1) {
      await append({ thread_id: `t${i}`, role: 'user', msg_id: `m${i}`, content: `${words[i % 8]} ${words[(i * 3) % 8]} ${words[(i * 5 + 1) % 8]} note ${i}` });
    }
    await loom.admin.ok('settings.set', { key: 'conversation_search_min_similarity', value: 0 });
    try {
      const query = 'zephyr tundra glacier';
      const lexical = msgIds((await search({ query, search_mode: 'lexical', limit: 5 })).hits);
      const vector = msgIds((await search({ query, search_mode: 'vector', limit: 5 })).hits);
      expect(msgIds((await search({ query, lexical_weight: 1, limit: 5 })).hits)).toEqual(lexical);
      expect(msgIds((await search({ query, lexical_weight: 0, limit: 5 })).hits)).toEqual(vector);
    } finally {
      await loom.admin.ok('settings.set', { key: 'conversation_search_min_similarity', value: 0.3 });
    }
  });

  it('[issue 10: stemming] lexical and hybrid find a turn by another inflection of its words, with the excerpt on the word', async () => {
    await append({ thread_id: 't', role: 'assistant', msg_id: 'rotated', content: 'Yesterday we rotated the staging credentials and restarted the workers.' });
    await append({ thread_id: 'u', role: 'user', msg_id: 'other', content: 'lunch plans for friday' });
    for (const search_mode of ['lexical', 'hybrid']) {
      const result = await search({ query: 'rotating credential', search_mode });
      expect(msgIds(result.hits)[0]).toBe('rotated');
      expect(result.hits[0]!.excerpt).toContain('rotated the staging credentials');
    }
    expect(msgIds((await search({ query: 'restarting worker', search_mode: 'lexical' })).hits)).toEqual(['rotated']);
  });

  it('[issue 10: neighbours] hybrid also returns the turn next to a strong hit in its thread, within the caller\'s filters; lexical does not', async () => {
    await append({ thread_id: 't', role: 'user', msg_id: 'q', content: 'What did you paint last weekend?' });
    await append({ thread_id: 't', role: 'assistant', msg_id: 'a', content: 'A sunset over the lake, with purple clouds.' });
    await append({ thread_id: 't', role: 'user', msg_id: 'later', content: 'Lovely. Shall we talk about groceries?' });
    await append({ thread_id: 'o', role: 'assistant', msg_id: 'elsewhere', content: 'Groceries are bought on mondays.' });
    expect(msgIds((await search({ query: 'paint weekend', search_mode: 'lexical' })).hits)).toEqual(['q']);
    const hybrid = await search({ query: 'paint weekend' });
    expect(msgIds(hybrid.hits).slice(0, 2)).toEqual(['q', 'a']);
    const answer = hybrid.hits[1]!;
    expect(answer.excerpt).toBe('A sunset over the lake, with purple clouds.');
    expect(answer.score).toBeGreaterThan(0);
    expect(answer.score).toBeLessThan(hybrid.hits[0]!.score);
    // A neighbour is one the search may return: the filters hold for it too.
    expect(msgIds((await search({ query: 'paint weekend', role: 'user' })).hits)).not.toContain('a');
    expect(msgIds((await search({ query: 'paint weekend', thread_id: 'o' })).hits)).not.toContain('a');
  });

  it('[issue 10: hybrid vector leg] the live similarity floor cuts vector search and turns only the vector leg found, not the vector share of a turn BM25 found', async () => {
    // Both hold the query's one indexed word once in three terms: BM25 ties them (newest first).
    await append({ thread_id: 'a', role: 'user', msg_id: 'near', content: 'rotation credentials weekly' });
    await append({ thread_id: 'b', role: 'user', msg_id: 'far', content: 'rotation lunch weekly' });
    // No query word as such: only the vector leg could find it.
    await append({ thread_id: 'c', role: 'user', msg_id: 'vector-only', content: 'credentials checklist' });
    await loom.admin.ok('settings.set', { key: 'conversation_search_min_similarity', value: 0.99 });
    try {
      const query = 'rotation credentialz';
      expect(msgIds((await search({ query, search_mode: 'lexical' })).hits)).toEqual(['far', 'near']);
      expect((await search({ query, search_mode: 'vector' })).hits).toEqual([]);
      // The misspelt word's character n-grams lift the turn that holds it, far below the floor.
      const hybrid = await search({ query });
      expect(hybrid.mode).toBe('hybrid');
      expect(msgIds(hybrid.hits)).toEqual(['near', 'far']);
    } finally {
      await loom.admin.ok('settings.set', { key: 'conversation_search_min_similarity', value: 0.3 });
    }
    expect(msgIds((await search({ query: 'rotation credentialz' })).hits)).toContain('vector-only');
  });

  it('CONV-SEARCH-06 [issue 10: excerpts] in hybrid, a BM25 hit shows the text around its first matched term; a neighbour and a vector-only hit their first characters', async () => {
    const filler = 'The quarterly report covered budgets, hiring, offices and travel in some detail. '.repeat(5);
    await append({ thread_id: 't', role: 'user', msg_id: 'q', content: `${filler}So, what did you paint last weekend?` });
    const answer = `A sunset over the lake, with purple clouds. ${filler}`;
    await append({ thread_id: 't', role: 'assistant', msg_id: 'a', content: answer });
    const hybrid = await search({ query: 'paint weekend' });
    expect(hybrid.mode).toBe('hybrid');
    expect(msgIds(hybrid.hits).slice(0, 2)).toEqual(['q', 'a']);
    expect(hybrid.hits[0]!.excerpt).toContain('what did you paint last weekend?');
    expect(hybrid.hits[0]!.excerpt.startsWith('The quarterly report')).toBe(false);
    expect(hybrid.hits[1]!.excerpt).toBe(Array.from(answer).slice(0, 240).join(''));
    // No query word as such: only the vector leg finds it (a short turn: a long one falls under the floor), and it shows its text.
    await append({ thread_id: 'c', role: 'user', msg_id: 'vector-only', content: 'credentials checklist' });
    const found = (await search({ query: 'credentialz' })).hits.find((h) => h.msg_id === 'vector-only');
    expect(found?.excerpt).toBe('credentials checklist');
  });

  it('CONV-SEARCH-03 [issue 10: hybrid vector depth] the vector leg ranks deeper for a larger limit: 40 turns only it finds all come back at limit 40', async () => {
    for (let i = 0; i < 40; i += 1) await append({ thread_id: `v${i}`, role: 'user', msg_id: `v${i}`, content: `credentials ${i}` });
    expect((await search({ query: 'credentialz', search_mode: 'lexical' })).hits).toEqual([]);
    const wide = await search({ query: 'credentialz', limit: 40 });
    expect(wide.mode).toBe('hybrid');
    expect(new Set(msgIds(wide.hits))).toEqual(new Set(Array.from({ length: 40 }, (_, i) => `v${i}`)));
    expect((await search({ query: 'credentialz' })).hits).toHaveLength(10);
  });

  it('CONV-SEARCH-06 [issue 10: excerpts] a BM25 hit the neighbour share lifts into the answer still shows the text around its matched term', async () => {
    // BM25 ranks q, b, a (a is long); a sits next to q, whose share lifts it past b.
    await append({ thread_id: 'x', role: 'user', msg_id: 'q', content: 'paint weekend' });
    const long = `${'extraordinarily '.repeat(18)}paint weekend`;
    await append({ thread_id: 'x', role: 'assistant', msg_id: 'a', content: long });
    await append({ thread_id: 'y', role: 'user', msg_id: 'b', content: `paint weekend ${'groceries '.repeat(8)}` });
    expect(msgIds((await search({ query: 'paint weekend', search_mode: 'lexical' })).hits)).toEqual(['q', 'b', 'a']);
    const hybrid = await search({ query: 'paint weekend', lexical_weight: 1, limit: 2 });
    expect(msgIds(hybrid.hits)).toEqual(['q', 'a']);
    expect(hybrid.hits[1]!.excerpt).toContain('extraordinarily paint weekend');
    expect(hybrid.hits[1]!.excerpt.length).toBeLessThan(long.length);
    expect(hybrid.hits[1]!.excerpt.endsWith('paint weekend')).toBe(true);
  });
});
