import { checkOpenApiDocument, validateValue } from '../../../testing/src/openapi-check';
import { ErrorStatus, type LoomError } from '../errors';
import { OpNames, Ops, opErrorCodes } from '../ops';
import { validateInput } from '../validate';
import { buildOpenApiDocument, OpenApiPaths, type OpenApiOperation } from './document';
import { WireSchemas } from './wire-schemas.generated';

const doc = buildOpenApiDocument({ version: '0.0.0-test' });
const schemas = doc.components.schemas;
const operation = (op: string): OpenApiOperation => doc.paths[`/v1/ops/${op}`]!['post']!;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('OpenAPI document [issue 12: OpenAPI]', () => {
  it('[issue 12: OpenAPI 3.1] is OpenAPI 3.1 in shape, and every $ref in it resolves', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(checkOpenApiDocument(JSON.parse(JSON.stringify(doc)))).toEqual([]);
  });

  it('[issue 12: OpenAPI] the structural check catches what it must: a dangling $ref, a 3.0 document, an operation without responses', () => {
    const broken = JSON.parse(JSON.stringify(doc)) as { openapi: string; paths: Record<string, { post: { responses: object } }>; components: { schemas: Record<string, unknown> } };
    broken.openapi = '3.0.3';
    delete broken.components.schemas['TurnView'];
    broken.paths['/v1/ops/run.get']!.post.responses = {};
    const problems = checkOpenApiDocument(broken);
    expect(problems).toEqual(expect.arrayContaining(['openapi is 3.0.3, not 3.1.x', 'POST /v1/ops/run.get: no responses', expect.stringContaining('$ref #/components/schemas/TurnView does not resolve')]));
  });

  it('[issue 12: every op has its schema] each op of the Ops table has its path, request schema, answer schema, role and error statuses', () => {
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/v1/ops/'));
    expect(paths.sort()).toEqual(OpNames.map((op) => `/v1/ops/${op}`).sort());
    for (const op of OpNames) {
      const o = operation(op);
      const request = Ops[op].request.name;
      expect(o.requestBody?.content['application/json']?.schema).toEqual(ref(request));
      expect(schemas[request]).toMatchObject({ type: 'object', additionalProperties: false });
      const answer = (o.responses['200'] as { content: Record<string, { schema: { $ref: string } }> }).content['application/json']!.schema;
      expect(answer.$ref).toMatch(/^#\/components\/schemas\/\w+$/);
      expect(schemas[answer.$ref.split('/').pop()!]).toMatchObject({ type: 'object' });
      expect(o['x-loom-role']).toBe(Ops[op].role);
      const statuses = Object.keys(o.responses).filter((s) => s !== '200').map(Number).sort();
      expect(statuses).toEqual(opErrorCodes(op).map((c) => ErrorStatus[c]).sort());
      for (const status of [400, 401, 403, 503]) expect(statuses).toContain(status);
    }
  });

  it('[issue 12: every op has its schema] an op whose answer type is missing fails the document, naming the op', () => {
    const { ['conversation.append']: _dropped, ...rest } = WireSchemas.responses;
    expect(() => buildOpenApiDocument({ version: 'x', wire: { ...WireSchemas, responses: rest } })).toThrow(/conversation\.append has no answer schema/);
  });

  it('[issue 12: errors] the statuses particular to an op are there: 409 and 501 for compact, 409 for create, 404 for get, 413 for append', () => {
    expect(Object.keys(operation('conversation.compact').responses)).toEqual(expect.arrayContaining(['404', '409', '501']));
    expect(Object.keys(operation('conversation.create').responses)).toContain('409');
    expect(Object.keys(operation('conversation.get').responses)).toContain('404');
    expect(Object.keys(operation('conversation.append').responses)).toContain('413');
    expect(Object.keys(operation('conversation.search').responses)).not.toContain('409');
  });

  it('[issue 12: errors] every error answer has the one error shape, with a code, a message, the bad fields for 400 and a correlation id', () => {
    for (const [name, response] of Object.entries(doc.components.responses)) {
      const media = response.content!['application/json']!;
      expect(media.schema).toEqual(ref('ErrorBody'));
      for (const example of Object.values(media.examples ?? {})) expect([name, validateValue(media.schema, example.value, schemas)]).toEqual([name, []]);
    }
    const invalid = doc.components.responses['Error_invalid_input']!.content!['application/json']!.examples!['invalid_input']!.value as { error: { fields: unknown[] } };
    expect(invalid.error.fields.length).toBeGreaterThan(0);
  });

  it.each(OpNames)('[issue 12: examples] %s: the request example passes its schema and its validator, and the answer example fits its schema', (op) => {
    const o = operation(op);
    const request = o.requestBody!.content['application/json']!;
    const example = request.examples!['example']!.value;
    expect(validateValue(request.schema, example, schemas)).toEqual([]);
    expect(() => validateInput(Ops[op].request as new () => object, example)).not.toThrow();
    const answer = (o.responses['200'] as { content: Record<string, { schema: object; examples: Record<string, { value: unknown }> }> }).content['application/json']!;
    expect(validateValue(answer.schema, answer.examples['example']!.value, schemas, { closed: true })).toEqual([]);
  });

  it.each(OpNames)('[issue 12: request schema = validator] %s: the schema requires exactly the fields the validator refuses to go without', (op) => {
    const cls = Ops[op].request as new () => object;
    const required = [...(schemas[cls.name]!.required ?? [])].sort();
    let named: string[] = [];
    try {
      validateInput(cls, {});
    } catch (error) {
      named = (error as LoomError).fields!.map((f) => f.field);
    }
    expect(named.sort()).toEqual(required);
  });

  it('[issue 12: no unknown on the wire] an answer with a field its type does not declare, or a missing one, does not fit (the check the live test relies on)', () => {
    const answer = { stored: true, thread_id: 't', msg_id: 'm' };
    expect(validateValue(ref('AppendTurnResponse'), answer, schemas, { closed: true })).toEqual([]);
    expect(validateValue(ref('AppendTurnResponse'), { ...answer, extra: 1 }, schemas, { closed: true })).toEqual(['$.extra: not a declared field']);
    expect(validateValue(ref('AppendTurnResponse'), { stored: true, thread_id: 't' }, schemas, { closed: true })).toEqual(['$: msg_id is missing']);
    expect(validateValue(ref('AppendTurnResponse'), { ...answer, reason: 'nope' }, schemas, { closed: true })).toEqual([expect.stringContaining('is not one of')]);
  });

  it('[issue 12: request schema = validator] bounds, enums and patterns come from the validators', () => {
    expect(schemas['AppendTurnRequest']!.properties!['role']).toMatchObject({ enum: ['user', 'assistant', 'system', 'tool'] });
    expect(schemas['AppendTurnRequest']!.properties!['tokens']).toMatchObject({ type: 'integer', minimum: 0, maximum: 4_294_967_295 });
    expect(schemas['AppendTurnRequest']!.properties!['thread_id']).toMatchObject({ type: 'string', minLength: 1, maxLength: 256 });
    expect(schemas['AppendTurnRequest']!.properties!['namespace']).toMatchObject({ type: 'string', pattern: expect.stringContaining('@me') });
    expect(schemas['RunReportUsageRequest']!.properties!['reports']).toMatchObject({ type: 'array', minItems: 1, maxItems: 2000, items: ref('UsageReport') });
    expect(schemas['SavedStatusRequest']!.properties!['message_ids']).toMatchObject({ type: 'array', maxItems: 500, items: { type: 'string', minLength: 1, maxLength: 256 } });
    expect(schemas['RecallRequest']!.properties!['since']).toMatchObject({ type: 'string', pattern: expect.any(String) });
    // The one field whose validators name no type takes it from its TypeScript type.
    expect(schemas['SetSettingRequest']!.properties!['value']).toMatchObject({ type: ['string', 'number'] });
    const since = schemas['RecallRequest']!.properties!['since']!;
    expect(validateValue(since, '2026-11-29T10:00Z', schemas)).toEqual([]);
    expect(validateValue(since, 'yesterday', schemas)).not.toEqual([]);
  });

  it('[issue 12: OpenAPI] the document names where it is served, and the service probes need no token', () => {
    expect(doc.paths[OpenApiPaths.document]!['get']!.security).toEqual([]);
    expect(doc.paths['/healthz']!['get']!.security).toEqual([]);
    expect(doc.security).toEqual([{ bearer: [] }]);
  });
});
