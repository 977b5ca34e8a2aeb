import { startTestLoom, uniqueNamespace, type TestLoom } from '../../testing/src';

describe('Roles and settings [issue 9: roles]', () => {
  let loom: TestLoom;
  beforeAll(async () => {
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false' } });
  });
  afterAll(async () => loom.close());

  const fields = (body: { error?: { fields?: Array<{ field: string }> } }) => (body.error?.fields ?? []).map((f) => f.field).sort();

  it('SAVE-TOKEN-01 [issue 9: unpinned own_user token]: token.create with a bounded read_scope must name whom it is bounded to (400 naming each missing field)', async () => {
    const ns = uniqueNamespace();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ read_scope: 'own_user' }, ['read_user_id']],
      [{ read_scope: 'own_session' }, ['read_session_id', 'read_user_id']],
      [{ read_scope: 'own_session', read_user_id: 'u1' }, ['read_session_id']],
      [{ read_scope: 'own_session', read_session_id: 's1' }, ['read_user_id']],
    ];
    for (const [extra, missing] of cases) {
      const r = await loom.admin.call('token.create', { namespace: ns, role: 'viewer', ...extra });
      expect([extra, r.status, fields(r.body)]).toEqual([extra, 400, missing]);
    }
    expect((await loom.admin.call('token.create', { namespace: ns, role: 'viewer', read_scope: 'own_user', read_user_id: 'u1' })).status).toBe(200);
  });

  it('[issue 9: deployment-wide settings] settings.set needs an every-namespace admin: a namespace admin gets 403 and nothing changes', async () => {
    const nsAdmin = await loom.as(uniqueNamespace(), 'admin');
    const before = await loom.admin.ok('settings.get', {});
    const r = await nsAdmin.call('settings.set', { key: 'conversation_search_min_similarity', value: 0.9 });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toMatch(/every namespace/);
    expect(await nsAdmin.ok('settings.get', {})).toEqual(before);
    expect((await loom.admin.call('settings.set', { key: 'conversation_search_min_similarity', value: before.conversation_search_min_similarity })).status).toBe(200);
  });

  it('[issue 9: deployment-wide settings] an every-namespace token is minted with namespace "*" by an every-namespace admin only, and may set settings', async () => {
    const minted = await loom.admin.call('token.create', { namespace: '*', role: 'admin', label: 'operator' });
    expect(minted.status).toBe(200);
    const operator = loom.admin.withToken(minted.body.token);
    const before = await operator.ok('settings.get', {});
    expect((await operator.call('settings.set', { key: 'conversation_search_excerpt_chars', value: before.conversation_search_excerpt_chars })).status).toBe(200);
    const nsAdmin = await loom.as(uniqueNamespace(), 'admin');
    expect((await nsAdmin.call('token.create', { namespace: '*', role: 'admin' })).status).toBe(403);
    expect((await loom.admin.call('token.create', { namespace: '**', role: 'admin' })).status).toBe(400);
  });

  it('SETTINGS-02 [issue 9: settings ranges]: every live setting refuses a value out of its range with a 400 naming value, and stores nothing', async () => {
    const before = await loom.admin.ok('settings.get', {});
    const bad: Array<[string, unknown]> = [
      ['conversation_search_min_similarity', -1],
      ['conversation_search_min_similarity', -0.01],
      ['conversation_search_min_similarity', 1.5],
      ['conversation_search_excerpt_chars', -1],
      ['conversation_search_excerpt_chars', 2049],
      ['conversation_search_excerpt_chars', 10.5],
      ['session_brief_model_calls', 2],
      ['session_brief_model_calls', 0.5],
      ['session_brief_model_calls', '1'],
    ];
    for (const [key, value] of bad) {
      const r = await loom.admin.call('settings.set', { key, value });
      expect([key, value, r.status, fields(r.body)]).toEqual([key, value, 400, ['value']]);
    }
    const huge = await loom.admin.call('settings.set', undefined, { rawBody: '{"key":"conversation_search_excerpt_chars","value":1e400}' });
    expect([huge.status, fields(huge.body)]).toEqual([400, ['value']]);
    expect(await loom.admin.ok('settings.get', {})).toEqual(before);
    for (const [key, value] of [['conversation_search_min_similarity', 0], ['conversation_search_min_similarity', 1], ['conversation_search_excerpt_chars', 0], ['session_brief_model_calls', 0]] as const) {
      expect([key, value, (await loom.admin.call('settings.set', { key, value })).status]).toEqual([key, value, 200]);
    }
    for (const [key, value] of Object.entries(before)) await loom.admin.ok('settings.set', { key, value });
  });
});
