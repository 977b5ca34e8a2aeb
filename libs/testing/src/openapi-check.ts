import type { JsonSchema } from '@loom/contracts';

/**
 * Checks for the OpenAPI document written by hand here rather than taken from a validator
 * package: the shape of OpenAPI 3.1 that Loom's document uses, every `$ref`, and values against
 * the JSON Schema keywords the wire uses (json-schema.ts). Each answers a list of problems.
 */

const TOP_LEVEL = new Set(['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags', 'externalDocs']);
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const OPERATION = new Set(['tags', 'summary', 'description', 'externalDocs', 'operationId', 'parameters', 'requestBody', 'responses', 'callbacks', 'deprecated', 'security', 'servers']);
const COMPONENTS = new Set(['schemas', 'responses', 'parameters', 'examples', 'requestBodies', 'headers', 'securitySchemes', 'links', 'callbacks', 'pathItems']);
const SCHEMA_KEYS = new Set<string>(['$ref', 'type', 'description', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'anyOf', 'examples', 'default']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Problems with `doc` as an OpenAPI 3.1 document; [] when there are none. */
export function checkOpenApiDocument(doc: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(doc)) return ['the document is not an object'];
  for (const key of Object.keys(doc)) if (!TOP_LEVEL.has(key) && !key.startsWith('x-')) problems.push(`unknown top-level field ${key}`);
  if (typeof doc['openapi'] !== 'string' || !/^3\.1\.\d+$/.test(doc['openapi'])) problems.push(`openapi is ${String(doc['openapi'])}, not 3.1.x`);
  const info = doc['info'];
  if (!isObject(info) || typeof info['title'] !== 'string' || typeof info['version'] !== 'string') problems.push('info needs a title and a version');
  const components = isObject(doc['components']) ? doc['components'] : {};
  for (const key of Object.keys(components)) if (!COMPONENTS.has(key)) problems.push(`unknown components field ${key}`);
  const schemes = isObject(components['securitySchemes']) ? components['securitySchemes'] : {};
  const checkSecurity = (where: string, security: unknown) => {
    if (security === undefined) return;
    if (!Array.isArray(security)) return problems.push(`${where}: security is not a list`);
    for (const requirement of security) for (const name of Object.keys(requirement as Json)) if (!schemes[name]) problems.push(`${where}: no security scheme ${name}`);
  };
  checkSecurity('document', doc['security']);
  if (!isObject(doc['paths'])) problems.push('paths is not an object');
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries(isObject(doc['paths']) ? doc['paths'] : {})) {
    if (!path.startsWith('/')) problems.push(`path ${path} does not start with /`);
    for (const [method, op] of Object.entries(item as Json)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!METHODS.has(method)) {
        problems.push(`${where}: not an HTTP method`);
        continue;
      }
      if (!isObject(op)) {
        problems.push(`${where}: not an object`);
        continue;
      }
      for (const key of Object.keys(op)) if (!OPERATION.has(key) && !key.startsWith('x-')) problems.push(`${where}: unknown field ${key}`);
      if (typeof op['operationId'] === 'string') {
        if (operationIds.has(op['operationId'])) problems.push(`${where}: operationId ${op['operationId']} used twice`);
        operationIds.add(op['operationId']);
      }
      checkSecurity(where, op['security']);
      const body = op['requestBody'];
      if (body !== undefined) {
        if (!isObject(body) || !isObject(body['content'])) problems.push(`${where}: requestBody has no content`);
        else for (const [type, media] of Object.entries(body['content'])) problems.push(...checkMedia(`${where} request ${type}`, media));
      }
      const responses = op['responses'];
      if (!isObject(responses) || Object.keys(responses).length === 0) {
        problems.push(`${where}: no responses`);
        continue;
      }
      for (const [status, response] of Object.entries(responses)) {
        if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(status)) problems.push(`${where}: response key ${status} is not a status`);
        problems.push(...checkResponse(`${where} ${status}`, response));
      }
    }
  }
  for (const [name, response] of Object.entries(isObject(components['responses']) ? components['responses'] : {})) problems.push(...checkResponse(`components.responses.${name}`, response));
  for (const [name, schema] of Object.entries(isObject(components['schemas']) ? components['schemas'] : {})) problems.push(...checkSchema(`components.schemas.${name}`, schema));
  problems.push(...unresolvedRefs(doc));
  return problems;
}

function checkResponse(where: string, response: unknown): string[] {
  if (!isObject(response)) return [`${where}: not an object`];
  if (typeof response['$ref'] === 'string') return Object.keys(response).length === 1 ? [] : [`${where}: a $ref response has other fields`];
  const problems = typeof response['description'] === 'string' ? [] : [`${where}: a response needs a description`];
  if (response['content'] !== undefined) {
    if (!isObject(response['content'])) return [...problems, `${where}: content is not an object`];
    for (const [type, media] of Object.entries(response['content'])) problems.push(...checkMedia(`${where} ${type}`, media));
  }
  return problems;
}

function checkMedia(where: string, media: unknown): string[] {
  if (!isObject(media) || media['schema'] === undefined) return [`${where}: no schema`];
  const problems = checkSchema(`${where} schema`, media['schema']);
  if (media['examples'] !== undefined) {
    for (const [name, example] of Object.entries(media['examples'] as Json)) if (!isObject(example) || !('value' in example)) problems.push(`${where}: example ${name} has no value`);
  }
  return problems;
}

/** Only the keywords the wire uses, each with a value of the right kind. */
function checkSchema(where: string, schema: unknown): string[] {
  if (schema === true || schema === false) return [];
  if (!isObject(schema)) return [`${where}: a schema must be an object`];
  const problems: string[] = [];
  for (const key of Object.keys(schema)) if (!SCHEMA_KEYS.has(key)) problems.push(`${where}: unknown keyword ${key}`);
  const type = schema['type'];
  if (type !== undefined && !(Array.isArray(type) ? type : [type]).every((t) => TYPES.has(t as string))) problems.push(`${where}: bad type ${JSON.stringify(type)}`);
  if (schema['required'] !== undefined && !(Array.isArray(schema['required']) && schema['required'].every((r) => typeof r === 'string'))) problems.push(`${where}: required is not a list of names`);
  if (Array.isArray(schema['required']) && isObject(schema['properties'])) {
    for (const r of schema['required'] as string[]) if (!(r in schema['properties'])) problems.push(`${where}: required ${r} is not a property`);
  }
  if (schema['pattern'] !== undefined) {
    try {
      new RegExp(schema['pattern'] as string, 'u');
    } catch {
      problems.push(`${where}: pattern is not an ECMA-262 regular expression`);
    }
  }
  for (const [name, sub] of Object.entries(isObject(schema['properties']) ? schema['properties'] : {})) problems.push(...checkSchema(`${where}.${name}`, sub));
  if (schema['items'] !== undefined) problems.push(...checkSchema(`${where}[]`, schema['items']));
  if (schema['additionalProperties'] !== undefined) problems.push(...checkSchema(`${where}{}`, schema['additionalProperties']));
  if (schema['anyOf'] !== undefined) (schema['anyOf'] as unknown[]).forEach((s, i) => problems.push(...checkSchema(`${where}|${i}`, s)));
  return problems;
}

/** Every `$ref` in the document that does not point at something in it. */
export function unresolvedRefs(doc: Json): string[] {
  const problems: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${path}[${i}]`));
    if (!isObject(value)) return;
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref') {
        if (typeof v !== 'string' || resolvePointer(doc, v) === undefined) problems.push(`${path}: $ref ${String(v)} does not resolve`);
      } else if (key !== 'examples' && key !== 'example') walk(v, `${path}.${key}`);
    }
  };
  walk(doc, '#');
  return problems;
}

function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

/**
 * Where `value` breaks `schema` ([] when it fits). `closed`: an object schema with properties
 * and no `additionalProperties` takes no other field either, so an answer with a field its type
 * does not declare is caught.
 */
export function validateValue(schema: JsonSchema, value: unknown, schemas: Record<string, JsonSchema>, options: { closed?: boolean } = {}, path = '$'): string[] {
  if (schema.$ref) {
    const target = schemas[schema.$ref.replace('#/components/schemas/', '')];
    if (!target) return [`${path}: $ref ${schema.$ref} does not resolve`];
    return validateValue(target, value, schemas, options, path);
  }
  if (schema.anyOf) {
    const fits = schema.anyOf.some((s) => validateValue(s, value, schemas, options, path).length === 0);
    return fits ? [] : [`${path}: fits none of anyOf (${JSON.stringify(value)?.slice(0, 80)})`];
  }
  const problems: string[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => isType(t, value))) return [`${path}: ${JSON.stringify(value)?.slice(0, 80)} is not ${types.join(' or ')}`];
  }
  if (schema.const !== undefined && value !== schema.const) problems.push(`${path}: is not ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.includes(value as string)) problems.push(`${path}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`);
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && [...value].length < schema.minLength) problems.push(`${path}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) problems.push(`${path}: longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) problems.push(`${path}: does not match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${path}: under ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${path}: over ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) problems.push(`${path}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push(`${path}: more than ${schema.maxItems} items`);
    if (schema.items) value.forEach((v, i) => problems.push(...validateValue(schema.items!, v, schemas, options, `${path}[${i}]`)));
  }
  if (isObject(value)) {
    for (const r of schema.required ?? []) if (!(r in value)) problems.push(`${path}: ${r} is missing`);
    for (const [key, v] of Object.entries(value)) {
      const declared = schema.properties?.[key];
      if (declared) problems.push(...validateValue(declared, v, schemas, options, `${path}.${key}`));
      else if (schema.additionalProperties === false || (options.closed && schema.properties && schema.additionalProperties === undefined)) problems.push(`${path}.${key}: not a declared field`);
      else if (isObject(schema.additionalProperties)) problems.push(...validateValue(schema.additionalProperties, v, schemas, options, `${path}.${key}`));
    }
  }
  return problems;
}

function isType(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}
