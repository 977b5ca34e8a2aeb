import { createHash } from 'node:crypto';
import type { JsonSchema, OpenApiDocument, OpenApiOperation, OpenApiResponse } from '@loom/contracts';

/**
 * The API reference as one HTML page, rendered on the server from the OpenAPI document: no
 * script, no asset from anywhere (its one style sheet is inline, allowed by its hash in the
 * page's Content-Security-Policy).
 */
export interface ReferencePage {
  html: string;
  contentSecurityPolicy: string;
}

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430;background:#fbfbfd}
main{max-width:1100px;margin:0 auto;padding:24px}
nav{columns:3 220px;font-size:14px;margin:12px 0 28px}
nav h3{margin:8px 0 2px;font-size:14px}
nav a{display:block}
a{color:#2456a6;text-decoration:none}
a:hover{text-decoration:underline}
code,pre{font:13px/1.4 ui-monospace,monospace}
pre{background:#f0f2f6;padding:10px;overflow:auto;border-radius:6px;max-height:420px}
section.op,section.schema{border-top:1px solid #d9dde5;padding:8px 0 16px}
h2{margin-top:36px}
h3 code{font-size:17px}
.role{display:inline-block;font-size:12px;border-radius:10px;padding:1px 8px;margin-left:8px;background:#e6ecf7}
.role.admin{background:#f7e3e3}.role.writer{background:#f5efd9}.role.viewer{background:#e1f0e4}
table{border-collapse:collapse;width:100%;font-size:14px;margin:6px 0}
th,td{text-align:left;vertical-align:top;border-bottom:1px solid #e5e8ee;padding:4px 8px}
th{font-weight:600;background:#f4f5f8}
.req{color:#a33;font-size:12px}
details{margin:6px 0}
`;

export function renderReferencePage(doc: OpenApiDocument): ReferencePage {
  const schemas = doc.components.schemas;
  const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
  const byTag = new Map<string, typeof ops>();
  for (const entry of ops) {
    const tag = entry.op.tags[0] ?? 'other';
    byTag.set(tag, [...(byTag.get(tag) ?? []), entry]);
  }
  const tagText = new Map(doc.tags.map((t) => [t.name, t.description]));
  const typeOf = (schema: JsonSchema | undefined): string => typeText(schema);

  const parts: string[] = [];
  parts.push(`<h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1>`);
  parts.push(doc.info.description.split('\n\n').map((p) => `<p>${inline(p)}</p>`).join(''));
  parts.push(`<p>The machine-readable document: <a href="/v1/openapi.json"><code>/v1/openapi.json</code></a> (OpenAPI 3.1).</p>`);
  parts.push('<nav>');
  for (const [tag, entries] of byTag) parts.push(`<h3>${esc(tag)}</h3>${entries.map((e) => `<a href="#${anchor(e.op.operationId)}">${esc(e.op.summary)}</a>`).join('')}`);
  parts.push('<h3>schemas</h3><a href="#schemas">every named type</a></nav>');

  for (const [tag, entries] of byTag) {
    parts.push(`<h2>${esc(tag)}</h2>${tagText.has(tag) ? `<p>${inline(tagText.get(tag)!)}</p>` : ''}`);
    for (const { path, method, op } of entries) parts.push(renderOperation(path, method, op, schemas, typeOf, doc.components.responses));
  }

  parts.push('<h2 id="schemas">Schemas</h2>');
  for (const name of Object.keys(schemas).sort()) {
    const schema = schemas[name]!;
    parts.push(`<section class="schema" id="${anchor(`schema-${name}`)}"><h3><code>${esc(name)}</code></h3>${schema.description ? `<p>${inline(schema.description)}</p>` : ''}${fieldsTable(schema, typeOf)}</section>`);
  }

  const hash = createHash('sha256').update(STYLE).digest('base64');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(doc.info.title)} reference</title><style>${STYLE}</style></head><body><main>${parts.join('\n')}</main></body></html>`;
  return { html, contentSecurityPolicy: `default-src 'none'; style-src 'sha256-${hash}'; img-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'` };
}

function renderOperation(
  path: string,
  method: string,
  op: OpenApiOperation,
  schemas: Record<string, JsonSchema>,
  typeOf: (s: JsonSchema | undefined) => string,
  errors: Record<string, OpenApiResponse>,
): string {
  const role = op['x-loom-role'];
  const request = op.requestBody?.content['application/json'];
  const requestSchema = request ? resolve(request.schema, schemas) : undefined;
  const ok = op.responses['200'] as OpenApiResponse | undefined;
  const answer = ok?.content?.['application/json'];
  const out: string[] = [`<section class="op" id="${anchor(op.operationId)}">`];
  out.push(`<h3><code>${esc(op.summary)}</code>${role ? `<span class="role ${esc(role)}">${esc(role)}</span>` : ''}</h3>`);
  out.push(`<p><code>${esc(method.toUpperCase())} ${esc(path)}</code></p>`);
  out.push(op.description.split('\n\n').map((p) => `<p>${inline(p)}</p>`).join(''));
  if (requestSchema) {
    out.push(`<h4>Body${request!.schema.$ref ? ` <small>(${typeOf(request!.schema)})</small>` : ''}</h4>${fieldsTable(requestSchema, typeOf)}`);
    const example = request!.examples?.['example']?.value;
    if (example !== undefined) out.push(`<details open><summary>Example body</summary><pre>${esc(JSON.stringify(example, null, 2))}</pre></details>`);
  }
  if (answer) {
    const resolved = resolve(answer.schema, schemas);
    out.push(`<h4>Answer (200)${answer.schema.$ref ? ` <small>(${typeOf(answer.schema)})</small>` : ''}</h4>${resolved ? fieldsTable(resolved, typeOf) : ''}`);
    const example = answer.examples?.['example']?.value;
    if (example !== undefined) out.push(`<details><summary>Example answer</summary><pre>${esc(JSON.stringify(example, null, 2))}</pre></details>`);
  }
  const failures = Object.entries(op.responses).filter(([status]) => status !== '200');
  if (failures.length > 0) {
    out.push('<h4>Errors</h4><table><tr><th>status</th><th>meaning</th></tr>');
    for (const [status, response] of failures) {
      const r = '$ref' in response ? errors[response.$ref.split('/').pop()!] : response;
      // The description opens with its status, already in the first column.
      out.push(`<tr><td>${esc(status)}</td><td>${inline((r?.description ?? '').replace(/^\d{3} /, ''))}</td></tr>`);
    }
    out.push('</table>');
  }
  out.push('</section>');
  return out.join('');
}

function fieldsTable(schema: JsonSchema, typeOf: (s: JsonSchema | undefined) => string): string {
  const props = schema.properties ?? {};
  if (Object.keys(props).length === 0) {
    return schema.additionalProperties && schema.additionalProperties !== true ? `<p>A map of ${typeOf(schema.additionalProperties)} by key.</p>` : '<p>No fields.</p>';
  }
  const rows = Object.entries(props).map(([name, p]) => {
    const required = schema.required?.includes(name) ? ' <span class="req">required</span>' : '';
    return `<tr><td><code>${esc(name)}</code>${required}</td><td>${typeOf(p)}</td><td>${esc(bounds(p))}</td><td>${p.description ? inline(p.description) : ''}</td></tr>`;
  });
  return `<table><tr><th>field</th><th>type</th><th>bounds</th><th>meaning</th></tr>${rows.join('')}</table>`;
}

function bounds(s: JsonSchema): string {
  const out: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined) out.push(`${s.minLength ?? 0}-${s.maxLength ?? '…'} characters`);
  if (s.minimum !== undefined || s.maximum !== undefined) out.push(`${s.minimum ?? '…'} to ${s.maximum ?? '…'}`);
  if (s.minItems !== undefined || s.maxItems !== undefined) out.push(`${s.minItems ?? 0}-${s.maxItems ?? '…'} items`);
  if (s.pattern !== undefined) out.push(`matches ${s.pattern}`);
  if (s.items) {
    const inner = bounds(s.items);
    if (inner) out.push(`each: ${inner}`);
  }
  return out.join('; ');
}

function typeText(schema: JsonSchema | undefined): string {
  if (!schema) return '';
  const again = (s: JsonSchema | undefined) => typeText(s);
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    return `<a href="#${anchor(`schema-${name}`)}">${esc(name)}</a>`;
  }
  if (schema.anyOf) return schema.anyOf.map(again).join(' | ');
  if (schema.const !== undefined) return `<code>${esc(JSON.stringify(schema.const))}</code>`;
  if (schema.enum) return schema.enum.map((v) => `<code>${esc(JSON.stringify(v))}</code>`).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return 'any JSON';
  return types
    .map((t) => {
      if (t === 'array') return `${again(schema.items) || 'any'}[]`;
      if (t === 'object' && schema.properties) return `{ ${Object.keys(schema.properties).map((k) => `${esc(k)}: ${again(schema.properties![k])}`).join(', ')} }`;
      if (t === 'object' && schema.additionalProperties && schema.additionalProperties !== true) return `map of ${again(schema.additionalProperties)}`;
      if (t === 'object') return 'object (free-form JSON)';
      return esc(t);
    })
    .join(' | ');
}

function resolve(schema: JsonSchema, schemas: Record<string, JsonSchema>): JsonSchema | undefined {
  return schema.$ref ? schemas[schema.$ref.split('/').pop()!] : schema;
}

function anchor(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '-');
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `code` and **bold** of the doc comments; everything else escaped. */
function inline(text: string): string {
  return esc(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}
