import type { JsonSchema } from './json-schema';

/** Values for fields by name, so a made-up answer reads like a real one. */
const BY_NAME: Record<string, unknown> = {
  namespace: 'acme',
  thread_id: 'thread-42',
  conversation_id: 'thread-42',
  msg_id: 'u-1',
  message_id: 'u-1',
  summary_msg_id: 'summary-1',
  agent: 'default',
  user_id: 'u1',
  run_id: 'run-7',
  session_id: 'sess-1',
  brief_key: 'auto/billing/ledger-move',
  project: 'billing',
  branch: 'ledger-move',
  token: 'loom_s3cr3t-shown-once',
  token_id: 'tok_0123abcd',
  label: 'claude-code on laptop',
  extraction_id: 'ext_1',
  erasure_id: 'era_1',
  memory_id: 'mem_1',
  usage_id: 'call-1',
  obs_id: 'obs-1',
  model: 'claude-sonnet',
  query: 'which ledger do invoices use',
  content: 'We moved invoices to the new ledger.',
  excerpt: 'We moved invoices to the new ledger.',
  text: 'Invoices live in ledger_v2.',
  title: 'Ledger migration',
  goal: 'Move invoices to the new ledger',
  next_cursor: null,
  cursor: null,
};

/**
 * A value that fits `schema`: the example shown for an answer. Made up from the schema (and the
 * field's name), so it always has the answer's shape; the request examples are the contracts' own.
 */
export function exampleOf(schema: JsonSchema, schemas: Record<string, JsonSchema>, field = '', depth = 0): unknown {
  if (schema.$ref) return exampleOf(schemas[schema.$ref.split('/').pop()!] ?? {}, schemas, field, depth + 1);
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  const named = BY_NAME[field];
  if (schema.enum) return schema.enum.includes(named as string) ? named : schema.enum.find((v) => v !== null) ?? null;
  if (schema.anyOf) return exampleOf(schema.anyOf.find((s) => s.type !== 'null') ?? schema.anyOf[0]!, schemas, field, depth);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const type = types.find((t) => t !== 'null') ?? (types.length ? 'null' : undefined);
  if (named !== undefined && (named === null ? types.includes('null') : type === typeof named)) return named;
  switch (type) {
    case 'string':
      return /(_at|^ts|since|until)$/.test(field) ? '2026-11-29T10:00:00.000Z' : field ? `${field}-1` : 'text';
    case 'integer':
    case 'number':
      return schema.minimum !== undefined && schema.minimum > 1 ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return depth > 6 || !schema.items ? [] : [exampleOf(schema.items, schemas, field.replace(/s$/, ''), depth + 1)];
    case 'object':
    case undefined: {
      if (!schema.properties) return {};
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(schema.properties)) {
        // Optional fields are shown only near the top, to keep examples short; an optional reason
        // goes with a refusal, which the example is not.
        if (!schema.required?.includes(key) && (depth > 1 || key === 'reason')) continue;
        out[key] = exampleOf(value, schemas, key, depth + 1);
      }
      return out;
    }
  }
}
