import { ErrorStatus, type ErrorCode } from '../errors';
import { Limits } from '../limits';
import { isDeploymentWideOp, isPerUserOp, OpNames, Ops, opErrorCodes, type OpName } from '../ops';
import { Roles } from '../roles';
import { exampleOf } from './examples';
import type { JsonSchema, WireSchemaSet } from './json-schema';
import { requestSchemas } from './request-schema';
import { WireSchemas } from './wire-schemas.generated';

/** An OpenAPI 3.1 document (the parts Loom writes). */
export interface OpenApiDocument {
  openapi: '3.1.0';
  jsonSchemaDialect: string;
  info: { title: string; version: string; description: string };
  security: Array<Record<string, string[]>>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, OpenApiResponse>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security?: Array<Record<string, string[]>>;
  requestBody?: { required: boolean; content: Record<string, MediaType> };
  responses: Record<string, OpenApiResponse | { $ref: string }>;
  /** The op's name, its least role, and whether it takes user-bounded tokens or needs an every-namespace token. */
  'x-loom-op'?: OpName;
  'x-loom-role'?: (typeof Roles)[number];
  'x-loom-per-user'?: boolean;
  'x-loom-deployment-wide'?: boolean;
}

export interface MediaType {
  schema: JsonSchema;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

export interface OpenApiResponse {
  description: string;
  content?: Record<string, MediaType>;
}

/** Where the document and its reference page are served. */
export const OpenApiPaths = { document: '/v1/openapi.json', reference: '/v1/docs' } as const;

const SCHEMA = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** What each error status means, for every op that may answer it (README "Errors"). */
const ERROR_TEXT: Record<ErrorCode, string> = {
  invalid_input: 'Bad input: every bad field is named in `fields`, and nothing was written.',
  unauthorized: 'Missing, unknown or revoked token.',
  forbidden: "The token's role is too low, the namespace is not the token's, or the token's read scope does not allow the op.",
  not_found: 'What the request names (a thread, run, brief, token, extraction or erasure) does not exist here.',
  unknown_op: 'There is no op of that name.',
  conflict: 'A compare-and-set lost: the thing exists already, is at another revision, or changed while the op ran. Nothing was written; read it again and retry.',
  payload_too_large: `The body is over ${Limits.maxContentBytes + 256 * 1024} bytes, or content is over ${Limits.maxContentBytes} bytes (1 MiB).`,
  rate_limited: 'Too many calls; slow down.',
  internal: 'An unexpected error; quote the correlation id when reporting it.',
  not_configured: 'The deployment lacks something the op needs (conversation.compact with no LLM configured: LOOM_LLM_BASE_URL, LOOM_LLM_MODEL).',
  unavailable: 'Storage (or a model the op needs) is down. Nothing was written, and sending the same request again is safe.',
};

const ERROR_EXAMPLES: Partial<Record<ErrorCode, { message: string; fields?: Array<{ field: string; message: string }> }>> = {
  invalid_input: { message: 'invalid input: thread_id, role', fields: [{ field: 'thread_id', message: 'thread_id must be a string' }, { field: 'role', message: 'role must be one of user, assistant, system, tool' }] },
  unauthorized: { message: 'missing bearer token' },
  forbidden: { message: 'conversation.delete needs the admin role; this token is writer' },
  not_found: { message: 'thread "thread-42" has no turns or metadata in namespace "acme"' },
  conflict: { message: 'thread "thread-42" already exists; change it with conversation.update' },
  payload_too_large: { message: `content is over ${Limits.maxContentBytes} bytes; split the turn or store it elsewhere` },
  not_configured: { message: 'conversation.compact needs an LLM provider to write the summary; set LOOM_LLM_BASE_URL and LOOM_LLM_MODEL' },
  unavailable: { message: 'storage is unavailable; nothing was written, retry' },
};

const AREAS: Record<string, string> = {
  conversation: 'Recorded turns and threads: append, read, search, compact, delete, saved messages.',
  memory: 'Facts, apart from the transcript, and the evidence they came from.',
  context: 'One pack of memories, turns and evidence for a query.',
  observe: "Tool observations of a session, and the facts they crystallize into.",
  session: 'Session briefs: the condensed state of a line of work.',
  erasure: "Erasing and exporting a person's (or a namespace's) data.",
  run: 'The run ledger and the model usage that gives a run its cost.',
  token: 'Tokens: create, list, revoke.',
  settings: 'Live settings, changed without a restart.',
  quarantine: 'Rows the storage engine refused, kept for an admin to retry or drop.',
};

export interface OpenApiOptions {
  /** Loom's version (package.json). */
  version: string;
  /** The answer schemas; the generated ones unless given (the generator passes fresh ones). */
  wire?: WireSchemaSet;
}

/**
 * The OpenAPI 3.1 document of the ops API, built from the contracts alone: each op's request
 * schema from its class-validator rules, its answer schema from its declared answer type, its
 * role, its error statuses, and examples.
 */
export function buildOpenApiDocument({ version, wire = WireSchemas }: OpenApiOptions): OpenApiDocument {
  const requests = requestSchemas(
    OpNames.map((op) => Ops[op].request as new () => object),
    wire.requests,
  );
  const errorSchemas = errorComponents();
  const schemas: Record<string, JsonSchema> = {};
  for (const part of [requests, wire.components, errorSchemas]) {
    for (const [name, schema] of Object.entries(part)) {
      if (schemas[name]) throw new Error(`two schemas are named ${name}`);
      schemas[name] = schema;
    }
  }
  const paths: OpenApiDocument['paths'] = {};
  for (const op of OpNames) paths[`/v1/ops/${op}`] = { post: operation(op, wire, schemas) };
  paths['/healthz'] = { get: probe('healthz', 'The process is up.', { type: 'object', properties: { status: { type: 'string', const: 'ok' } }, required: ['status'] }) };
  paths['/readyz'] = {
    get: {
      ...probe('readyz', 'Storage, transport and a test write: 200 when all pass, else 503 with the reasons.', READY_SCHEMA),
      responses: { '200': { description: 'Ready.', content: { 'application/json': { schema: READY_SCHEMA } } }, '503': { description: 'Not ready: `checks` says which part failed, `reasons` why.', content: { 'application/json': { schema: READY_SCHEMA } } } },
    },
  };
  paths[OpenApiPaths.document] = { get: probe('openapi', 'This document (OpenAPI 3.1). No token needed.', { type: 'object', additionalProperties: true }) };
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Loom ops API',
      version,
      description: [
        'One op per call: `POST /v1/ops/<op>` with a JSON body, answered with JSON. Every call needs a bearer token (`loom token create`).',
        `Roles are ordered (${Roles.join(' < ')}); each op names the least role it needs (\`x-loom-role\`).`,
        'Every op accepts `namespace` (defaults to the token\'s) and most accept `agent` (defaults to "default").',
        'Errors come in one shape, `{"error": {"code", "message", "fields"?, "correlation_id"}}`; business outcomes (`stored: false`, `reason: "logging_disabled"`, ...) are 200 answers.',
        `Bodies: nested at most ${Limits.maxJsonDepth} levels; strings well-formed Unicode; no key named __proto__, constructor or prototype; numbers finite and within bounds; \`null\` is not a value (leave an optional field out). Pages of turns hold at most \`limit\` turns and ${Limits.pageBudgetBytes / 1024 / 1024} MiB of text; follow \`next_cursor\`.`,
      ].join('\n\n'),
    },
    security: [{ bearer: [] }],
    tags: [...new Set(OpNames.map(area))].map((name) => ({ name, description: AREAS[name] ?? name })),
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(errorCodes().map((code) => [errorResponseName(code), errorResponse(code)])),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A Loom token: `Authorization: Bearer <token>`. `loom up` prints the admin token once; `token.create` makes others.' } },
    },
  };
}

function operation(op: OpName, wire: WireSchemaSet, schemas: Record<string, JsonSchema>): OpenApiOperation {
  const request = Ops[op].request as { name: string; example?: object };
  const answer = wire.responses[op];
  if (!answer) throw new Error(`op ${op} has no answer schema: run npm run generate:wire`);
  const role = Ops[op].role;
  const notes = [
    `Needs the **${role}** role.`,
    isPerUserOp(op) ? 'Also takes a token bounded to one user (`read_scope: own_user`), which acts for that user only.' : 'Refuses a token bounded to one user or session.',
    ...(isDeploymentWideOp(op) ? ['Acts on every namespace at once: needs a token for every namespace (`"*"`).'] : []),
  ];
  const requestDoc = wire.requests[request.name]?.description;
  const responses: OpenApiOperation['responses'] = {
    '200': { description: 'The answer.', content: { 'application/json': { schema: answer, examples: { example: { value: exampleOf(answer, schemas) } } } } },
  };
  for (const code of opErrorCodes(op)) responses[String(ErrorStatus[code])] = { $ref: `#/components/responses/${errorResponseName(code)}` };
  return {
    operationId: op,
    summary: op,
    description: [...(requestDoc ? [requestDoc] : []), ...notes].join('\n\n'),
    tags: [area(op)],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: SCHEMA(request.name), ...(request.example ? { examples: { example: { value: JSON.parse(JSON.stringify(request.example)) as unknown } } } : {}) } },
    },
    responses,
    'x-loom-op': op,
    'x-loom-role': role,
    'x-loom-per-user': isPerUserOp(op),
    'x-loom-deployment-wide': isDeploymentWideOp(op),
  };
}

const READY_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ready', 'not_ready'] },
    checks: { type: 'object', additionalProperties: { type: 'boolean' } },
    reasons: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['status', 'checks'],
};

function probe(id: string, description: string, schema: JsonSchema): OpenApiOperation {
  return { operationId: id, summary: id, description, tags: ['service'], security: [], responses: { '200': { description: 'OK.', content: { 'application/json': { schema } } } } };
}

function area(op: OpName): string {
  return op.split('.')[0]!;
}

/** The codes that have a status of their own in an op's answer (unknown_op is a path no op has). */
function errorCodes(): ErrorCode[] {
  return (Object.keys(ErrorStatus) as ErrorCode[]).filter((code) => code !== 'unknown_op');
}

function errorResponseName(code: ErrorCode): string {
  return `Error_${code}`;
}

function errorResponse(code: ErrorCode): OpenApiResponse {
  const example = ERROR_EXAMPLES[code] ?? { message: ERROR_TEXT[code] };
  return {
    description: `${ErrorStatus[code]} \`${code}\`: ${ERROR_TEXT[code]}`,
    content: {
      'application/json': {
        schema: SCHEMA('ErrorBody'),
        examples: { [code]: { value: { error: { code, ...example, correlation_id: '5b0c1f0e-8d3a-4c1e-9a43-2f8f3f0e7c11' } } } },
      },
    },
  };
}

function errorComponents(): Record<string, JsonSchema> {
  return {
    FieldError: {
      description: 'One bad field: its path (`messages[1].content`, `metadata.a`) and what is wrong with it.',
      type: 'object',
      properties: { field: { type: 'string' }, message: { type: 'string' } },
      required: ['field', 'message'],
    },
    ErrorBody: {
      description: 'The one error shape of every op.',
      type: 'object',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: { type: 'string', enum: Object.keys(ErrorStatus) },
            message: { type: 'string' },
            fields: { description: `With invalid_input (and some payload_too_large): each bad field, at most ${Limits.maxFieldErrors}.`, type: 'array', items: SCHEMA('FieldError') },
            correlation_id: { description: 'Also in the loom-correlation-id header; quote it when reporting a problem.', type: 'string' },
          },
          required: ['code', 'message', 'correlation_id'],
        },
      },
      required: ['error'],
    },
  };
}
