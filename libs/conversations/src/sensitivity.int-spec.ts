import { ControllableProvider, embeddingRows, startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

/** One example of each high shape the spec names. */
const HIGH_TURNS: Record<string, string> = {
  api_key: 'use this: sk-ant-api03-' + 'AbCdEf012345'.repeat(6),
  password: 'the staging db is postgres://app@db and password=Hunter2Staging!',
  card: 'charge my card 4111 1111 1111 1111 exp 12/29',
  ssn: 'my SSN is 123-45-6789 for the payroll form',
  pin: 'my PIN is 4821, keep it handy',
};

describe('Sensitivity ("reads as high")', () => {
  const provider = new ControllableProvider();
  let loom: TestLoom;
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom({ provider });
  });
  beforeEach(async () => {
    ns = uniqueNamespace();
    await loom.record(ns);
  });
  afterAll(async () => loom.close());
  const append = (body: Record<string, unknown>) => loom.admin.ok('conversation.append', { namespace: ns, ...body });

  it('CONV-SENS-01: a turn holding any high shape is stored exactly as written but gets no embedding row', async () => {
    for (const [kind, content] of Object.entries(HIGH_TURNS)) {
      expect(await append({ thread_id: kind, role: 'user', content })).toMatchObject({ stored: true });
    }
    for (const [kind, content] of Object.entries(HIGH_TURNS)) {
      const [turn] = (await loom.admin.ok('conversation.list', { namespace: ns, thread_id: kind })).messages;
      expect(turn.content).toBe(content);
    }
    expect(await embeddingRows(loom.gateway.runtime.storage, ns)).toEqual([]);
  });

  it('CONV-SENS-02: a high turn\'s text is never passed to the embedder', async () => {
    const before = provider.received.length;
    for (const content of Object.values(HIGH_TURNS)) await append({ thread_id: 't', role: 'assistant', content });
    expect(provider.received.length).toBe(before);
  });

  it('CONV-SENS-03: search never returns a high turn, by vector or by the substring fallback, even for an exact substring', async () => {
    await append({ thread_id: 't', role: 'user', content: HIGH_TURNS['card']! });
    await append({ thread_id: 't', role: 'user', content: 'charge the card on file for the March invoice' });
    const vector = await loom.admin.ok('conversation.search', { namespace: ns, query: 'charge my card 4111 1111 1111 1111 exp 12/29', search_mode: 'vector' });
    expect(vector.hits.map((h: { excerpt: string }) => h.excerpt)).not.toContain(HIGH_TURNS['card']);
    // Nor by its words [issue 10]: a high turn has no postings.
    for (const search_mode of ['hybrid', 'lexical']) {
      const words = await loom.admin.ok('conversation.search', { namespace: ns, query: 'charge card 4111 1111 1111 1111', search_mode });
      expect(words.hits.map((h: { excerpt: string }) => h.excerpt)).toEqual(['charge the card on file for the March invoice']);
    }
    await loom.stopEmbedder();
    try {
      const fallback = await loom.admin.ok('conversation.search', { namespace: ns, query: 'charge', search_mode: 'vector' });
      expect(fallback.mode).toBe('substring');
      expect(fallback.hits.map((h: { excerpt: string }) => h.excerpt)).toEqual(['charge the card on file for the March invoice']);
      const exact = await loom.admin.ok('conversation.search', { namespace: ns, query: '4111 1111 1111 1111', search_mode: 'vector' });
      expect(exact.hits).toEqual([]);
    } finally {
      await loom.startEmbedder();
    }
  });

  it('a search query that reads as high is never sent to the embedder', async () => {
    await append({ thread_id: 't', role: 'user', content: 'rotate the deploy key tomorrow' });
    const before = provider.received.length;
    const result = await loom.admin.ok('conversation.search', { namespace: ns, query: `rotate ${HIGH_TURNS['api_key']}`, search_mode: 'vector' });
    expect(provider.received.length).toBe(before);
    expect(result.mode).toBe('substring');
  });

  it('CONV-SENS-04: get and list still return a high turn with its full content', async () => {
    await append({ thread_id: 't', role: 'user', content: HIGH_TURNS['ssn']!, msg_id: 'h' });
    const got = await loom.admin.ok('conversation.get', { namespace: ns, thread_id: 't', include_messages: true });
    expect(got.messages.map((m: { content: string }) => m.content)).toEqual([HIGH_TURNS['ssn']]);
    const listed = await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 't' });
    expect(listed.messages[0].content).toBe(HIGH_TURNS['ssn']);
  });

  it('CONV-SENS-05: threads shows an empty excerpt for a thread whose last turn is high', async () => {
    await append({ thread_id: 'plain', role: 'user', content: 'an ordinary question about invoices' });
    await append({ thread_id: 'secret', role: 'user', content: 'an ordinary opener' });
    await append({ thread_id: 'secret', role: 'assistant', content: HIGH_TURNS['password']! });
    const { threads } = await loom.admin.ok('conversation.threads', { namespace: ns });
    const byId = Object.fromEntries(threads.map((t: { thread_id: string; excerpt: string }) => [t.thread_id, t.excerpt]));
    expect(byId).toEqual({ plain: 'an ordinary question about invoices', secret: '' });
  });

  it('CONV-SENS-06: threads shows an empty title for a thread whose title reads as high', async () => {
    await append({ thread_id: 't', role: 'user', content: 'hello' });
    await loom.admin.ok('conversation.update', { namespace: ns, thread_id: 't', title: 'login with password=Sw0rdfish2024' });
    await append({ thread_id: 'u', role: 'user', content: 'hello' });
    await loom.admin.ok('conversation.update', { namespace: ns, thread_id: 'u', title: 'Ledger migration' });
    const { threads } = await loom.admin.ok('conversation.threads', { namespace: ns });
    const titles = Object.fromEntries(threads.map((t: { thread_id: string; title: string }) => [t.thread_id, t.title]));
    expect(titles).toEqual({ t: '', u: 'Ledger migration' });
  });

  it('CONV-SENS-07: the excerpt check covers the 240 characters shown plus the next 1,024', async () => {
    const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(n / 27)).slice(0, n);
    // A key at character 1,000: past what is shown, inside the window, so the excerpt is empty.
    await append({ thread_id: 'at1000', role: 'assistant', content: filler(1000) + ' sk-' + 'Zx81'.repeat(10) + ' ' + filler(200) });
    // AMBIGUOUS(beyond the window): a key at character 1,300 lies past 240 + 1,024; the excerpt shows (it holds no secret).
    await append({ thread_id: 'at1300', role: 'assistant', content: filler(1300) + ' sk-' + 'Zx81'.repeat(10) });
    const { threads } = await loom.admin.ok('conversation.threads', { namespace: ns });
    const excerpts = Object.fromEntries(threads.map((t: { thread_id: string; excerpt: string }) => [t.thread_id, t.excerpt]));
    expect(excerpts['at1000']).toBe('');
    expect(excerpts['at1300']).toBe(filler(240));
    // Either way the turn read as high when appended: no embedding row.
    expect(await embeddingRows(loom.gateway.runtime.storage, ns)).toEqual([]);
  });
});
