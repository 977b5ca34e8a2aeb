import { plainToInstance } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import { ISO_TIME_PATTERN } from '../common.dto';
import { Limits } from '../limits';
import type { JsonSchema, WireSchemaSet } from './json-schema';

type RequestClass = new () => object;
type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/**
 * JSON Schemas of request classes, read from the class-validator rules the gateway runs
 * (validateInput): the schema says what the validator takes, no more and no less. Classes
 * nested with @ValidateNested become components too. Doc comments (and the TypeScript type of
 * a field whose validators name none, such as settings.set's value) come from `docs`.
 */
export function requestSchemas(roots: RequestClass[], docs: WireSchemaSet['requests']): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const queue = [...roots];
  while (queue.length > 0) {
    const cls = queue.shift()!;
    if (out[cls.name]) continue;
    const byField = new Map<string, ValidationMetadata[]>();
    for (const m of getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false)) {
      byField.set(m.propertyName, [...(byField.get(m.propertyName) ?? []), m]);
    }
    const classDocs = docs[cls.name];
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [field, metas] of byField) {
      const { schema, optional, nested } = fieldSchema(cls, field, metas);
      if (nested) queue.push(nested);
      const doc = classDocs?.fields[field];
      // The TypeScript type fills in a field whose validators name no type (IsDefined alone).
      const hinted = schema.type === undefined && !schema.$ref && doc && !doc.schema.$ref ? { ...doc.schema, ...schema } : schema;
      properties[field] = doc?.description ? { description: doc.description, ...hinted } : hinted;
      if (!optional) required.push(field);
    }
    out[cls.name] = {
      ...(classDocs?.description ? { description: classDocs.description } : {}),
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      // validateInput refuses unknown fields (forbidNonWhitelisted).
      additionalProperties: false,
    };
  }
  return out;
}

function fieldSchema(cls: RequestClass, field: string, metas: ValidationMetadata[]): { schema: JsonSchema; optional: boolean; nested?: RequestClass } {
  const schema: JsonSchema = {};
  const item: JsonSchema = {};
  let optional = false;
  let nested: RequestClass | undefined;
  // The first rule of a kind wins: a subclass's own rules come before the ones it inherits.
  const set = <K extends keyof JsonSchema>(target: JsonSchema, key: K, value: JsonSchema[K]): void => {
    if (target[key] === undefined) target[key] = value;
  };
  for (const m of metas) {
    const target = m.each ? item : schema;
    const c = (m.constraints ?? []) as unknown[];
    if (m.type === 'conditionalValidation') {
      optional = true;
      continue;
    }
    if (m.type === 'nestedValidation') {
      nested = nestedClass(cls, field);
      set(m.each ? item : schema, '$ref', `#/components/schemas/${nested.name}`);
      continue;
    }
    switch (m.name) {
      case 'isString':
        set(target, 'type', 'string');
        break;
      case 'isInt':
        set(target, 'type', 'integer');
        break;
      case 'isNumber':
        set(target, 'type', 'number');
        break;
      case 'isBoolean':
        set(target, 'type', 'boolean');
        break;
      case 'isArray':
        set(target, 'type', 'array');
        break;
      case 'isObject':
        set(target, 'type', 'object');
        break;
      case 'isIn':
        set(target, 'enum', [...(c[0] as Array<string | number>)]);
        break;
      case 'matches':
        set(target, 'pattern', (c[0] as RegExp).source);
        break;
      case 'minLength':
        set(target, 'minLength', c[0] as number);
        break;
      case 'maxLength':
        set(target, 'maxLength', c[0] as number);
        break;
      case 'min':
        set(target, 'minimum', c[0] as number);
        break;
      case 'max':
        set(target, 'maximum', c[0] as number);
        break;
      case 'arrayMinSize':
        set(schema, 'minItems', c[0] as number);
        break;
      case 'arrayMaxSize':
        set(schema, 'maxItems', c[0] as number);
        break;
      case 'isoTime':
        set(target, 'type', 'string');
        set(target, 'pattern', ISO_TIME_PATTERN.source);
        set(target, 'description', `A date (YYYY-MM-DD, midnight UTC) or a time with its offset (YYYY-MM-DDTHH:MM[:SS[.fff]]Z or ±HH:MM), years ${Limits.minYear}-${Limits.maxYear}.`);
        break;
      case 'jsonObjectBounds':
        set(target, 'type', 'object');
        set(target, 'additionalProperties', true);
        set(target, 'description', `Free-form JSON: nested at most ${Limits.maxMetadataDepth} levels, at most ${Limits.maxMetadataChars} characters as JSON.`);
        break;
      case 'isDefined':
        break;
      default:
        // A rule the document cannot express must not be silently dropped.
        throw new Error(`${cls.name}.${field}: no JSON Schema for the validator ${m.name ?? m.type}`);
    }
  }
  if (Object.keys(item).length > 0) {
    if (schema.type === undefined) schema.type = 'array';
    schema.items = item;
  }
  return { schema: orderKeys(schema), optional, ...(nested ? { nested } : {}) };
}

/** The class a nested field holds, found the public way: by transforming an empty one. */
function nestedClass(cls: RequestClass, field: string): RequestClass {
  const value = (plainToInstance(cls, { [field]: [{}] }) as Record<string, unknown>)[field];
  const element = (Array.isArray(value) ? value[0] : value) as object | undefined;
  if (!element || element.constructor === Object) throw new Error(`${cls.name}.${field}: @ValidateNested without @Type`);
  return element.constructor as RequestClass;
}

const KEY_ORDER: Array<keyof JsonSchema> = ['$ref', 'description', 'type', 'enum', 'const', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'items', 'properties', 'required', 'additionalProperties'];

function orderKeys(schema: JsonSchema): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (schema[key] !== undefined) out[key] = schema[key];
  // A nested class says its own type.
  if (out['$ref'] !== undefined) delete out['type'];
  return out as JsonSchema;
}
