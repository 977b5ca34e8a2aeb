import type { OpenApiDocument } from '../document';
import type { JsonSchema } from '../json-schema';

/**
 * The TypeScript SDK's wire types, written from the OpenAPI document: one declaration per
 * schema, each op's request and answer, and the op names at run time. The SDK depends on
 * nothing but this file, so its package installs with no dependency.
 */
export function sdkTypesFile(doc: OpenApiDocument): string {
  const ops = Object.values(doc.paths)
    .map((item) => item['post'])
    .filter((op): op is NonNullable<typeof op> => op?.['x-loom-op'] !== undefined);
  const lines: string[] = [
    '// Generated from the OpenAPI document of the contracts by `npm run generate:wire`',
    '// (libs/contracts/src/openapi/generate). Do not edit: change the contracts and run it again.',
    '/* eslint-disable */',
    '',
  ];
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    lines.push(...doc_(schema.description, ''));
    if (schema.type === 'object' && schema.properties && !schema.anyOf) lines.push(`export interface ${name} ${objectText(schema, '')}`, '');
    else lines.push(`export type ${name} = ${typeText(schema, '')};`, '');
  }
  const opNames = ops.map((op) => op['x-loom-op']!);
  lines.push('/** Every op, as `POST /v1/ops/<op>` names it. */');
  lines.push(`export const OP_NAMES = ${JSON.stringify(opNames, null, 2).replace(/"/g, "'")} as const;`);
  lines.push('export type OpName = (typeof OP_NAMES)[number];', '');
  lines.push("/** The least role each op needs (viewer < writer < admin). */");
  lines.push(`export const OP_ROLES: { readonly [O in OpName]: 'viewer' | 'writer' | 'admin' } = {`);
  for (const op of ops) lines.push(`  '${op['x-loom-op']}': '${op['x-loom-role']}',`);
  lines.push('};', '');
  lines.push('/** What each op takes. */', 'export interface OpRequests {');
  for (const op of ops) lines.push(`  '${op['x-loom-op']}': ${typeText(op.requestBody!.content['application/json']!.schema, '  ')};`);
  lines.push('}', '');
  lines.push('/** What each op answers with a 200. */', 'export interface OpResponses {');
  for (const op of ops) {
    const ok = op.responses['200'] as { content: Record<string, { schema: JsonSchema }> };
    lines.push(`  '${op['x-loom-op']}': ${typeText(ok.content['application/json']!.schema, '  ')};`);
  }
  lines.push('}', '');
  return lines.join('\n');
}

function doc_(text: string | undefined, indent: string): string[] {
  if (!text) return [];
  return [`${indent}/** ${text.replace(/\*\//g, '*\\/')} */`];
}

function objectText(schema: JsonSchema, indent: string): string {
  const inner = `${indent}  `;
  const lines = ['{'];
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    lines.push(...doc_(prop.description, inner));
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
    lines.push(`${inner}${name}${schema.required?.includes(key) ? '' : '?'}: ${typeText(prop, inner)};`);
  }
  if (schema.additionalProperties && schema.additionalProperties !== true) lines.push(`${inner}[key: string]: ${typeText(schema.additionalProperties, inner)};`);
  lines.push(`${indent}}`);
  return lines.join('\n');
}

function typeText(schema: JsonSchema, indent: string): string {
  if (schema.$ref) return schema.$ref.split('/').pop()!;
  if (schema.anyOf) return schema.anyOf.map((s) => typeText(s, indent)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const).replace(/"/g, "'");
  if (schema.enum) return schema.enum.map((v) => (typeof v === 'string' ? `'${v.replace(/'/g, "\\'")}'` : String(v))).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return 'unknown';
  return types
    .map((t) => {
      switch (t) {
        case 'string':
        case 'boolean':
        case 'null':
          return t;
        case 'integer':
        case 'number':
          return 'number';
        case 'array': {
          const item = schema.items ? typeText(schema.items, indent) : 'unknown';
          return /[ |]/.test(item) ? `Array<${item}>` : `${item}[]`;
        }
        case 'object':
          if (schema.properties) return objectText(schema, indent);
          if (schema.additionalProperties && schema.additionalProperties !== true) return `Record<string, ${typeText(schema.additionalProperties, indent)}>`;
          return 'Record<string, unknown>';
      }
    })
    .join(' | ');
}
