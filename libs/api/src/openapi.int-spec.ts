import { buildOpenApiDocument, OpNames, Ops, type JsonSchema, type OpenApiDocument } from '@loom/contracts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { callEveryOp, startMatrixLoom, type MatrixLoom } from '../../testing/src';
import { checkOpenApiDocument, validateValue } from '../../testing/src/openapi-check';

const version = (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

/** The served API description, and every op's real answer held to it. */
describe('OpenAPI served by the gateway [issue 12: OpenAPI]', () => {
  let matrix: MatrixLoom;
  beforeAll(async () => {
    matrix = await startMatrixLoom();
  }, 120_000);
  afterAll(async () => matrix.close());

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${matrix.loom.url}${path}`, { headers });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };

  it('[issue 12: /v1/openapi.json] GET /v1/openapi.json answers the document, with no token, and it is OpenAPI 3.1 with every $ref resolved', async () => {
    const answer = await get('/v1/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = JSON.parse(answer.text) as OpenApiDocument;
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument({ version }))));
    expect(doc.info.version).toBe(version);
    expect(checkOpenApiDocument(doc)).toEqual([]);
  });

  it('[issue 12: reference page] GET /v1/docs is a readable page of every op, with nothing fetched from elsewhere and no script', async () => {
    const page = await get('/v1/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    for (const op of OpNames) {
      expect(page.text).toContain(`id="${op.replace(/[^A-Za-z0-9_-]/g, '-')}"`);
      expect(page.text).toContain(`<span class="role ${Ops[op].role}">`);
    }
    expect(page.text).not.toMatch(/<script|<link|<img|@import|url\(/i);
    expect(page.text.match(/(?:src|href)="(?!#|\/)[^"]*"/g) ?? []).toEqual([]);
    // Every internal link lands on an anchor of the page.
    const anchors = new Set([...page.text.matchAll(/id="([^"]+)"/g)].map((m) => m[1]));
    const dangling = [...page.text.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]).filter((id) => !anchors.has(id));
    expect(dangling).toEqual([]);
  });

  it('[issue 12: no unknown on the wire] every op, called for real, answers 200 with exactly the fields of its declared answer schema', async () => {
    const doc = buildOpenApiDocument({ version });
    const schemas = doc.components.schemas;
    const answers = await callEveryOp(matrix.loom);
    expect(answers.map((a) => a.op)).toEqual(OpNames);
    const problems: string[] = [];
    for (const { op, status, body } of answers) {
      if (status !== 200) {
        problems.push(`${op}: status ${status} ${JSON.stringify(body).slice(0, 200)}`);
        continue;
      }
      const ok = doc.paths[`/v1/ops/${op}`]!['post']!.responses['200'] as { content: Record<string, { schema: JsonSchema }> };
      problems.push(...validateValue(ok.content['application/json']!.schema, body, schemas, { closed: true }).map((p) => `${op}: ${p}`));
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('[issue 12: errors] error answers have the documented error shape: 400 naming each bad field, 401, 403, 404 and 409', async () => {
    const doc = buildOpenApiDocument({ version });
    const errorBody = { $ref: '#/components/schemas/ErrorBody' };
    const ns = `oa-${Date.now()}`;
    const viewer = (await matrix.loom.admin.ok<{ token: string }>('token.create', { namespace: ns, role: 'viewer' })).token;
    await matrix.loom.admin.ok('conversation.set_logging', { namespace: ns, enabled: true });
    expect(await matrix.loom.admin.ok('conversation.create', { namespace: ns, thread_id: 't1' })).toMatchObject({ created: true });
    const cases: Array<[number, { status: number; body: unknown }]> = [
      [400, await matrix.loom.admin.call('conversation.append', { namespace: ns, role: 'narrator' })],
      [401, await matrix.loom.admin.call('conversation.get', { namespace: ns, thread_id: 't1' }, { token: null })],
      [403, await matrix.loom.admin.withToken(viewer).call('conversation.delete', { namespace: ns, thread_id: 't1', confirm_thread_id: 't1' })],
      [404, await matrix.loom.admin.call('conversation.get', { namespace: ns, thread_id: 'no-such-thread' })],
      [409, await matrix.loom.admin.call('conversation.create', { namespace: ns, thread_id: 't1' })],
    ];
    for (const [status, answer] of cases) {
      expect([status, answer.status]).toEqual([status, status]);
      expect([status, validateValue(errorBody, answer.body, doc.components.schemas, { closed: true })]).toEqual([status, []]);
    }
    expect((cases[0]![1].body as { error: { fields: Array<{ field: string }> } }).error.fields.map((f) => f.field).sort()).toEqual(['content', 'role', 'thread_id']);
  });
});
