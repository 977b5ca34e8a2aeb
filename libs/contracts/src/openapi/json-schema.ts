/**
 * The part of JSON Schema 2020-12 (the dialect of OpenAPI 3.1) that the wire uses. Every schema of
 * the OpenAPI document, the generated answer schemas and the SDK's types are built from these keys.
 */
export interface JsonSchema {
  $ref?: string;
  type?: JsonType | JsonType[];
  description?: string;
  enum?: Array<string | number | boolean | null>;
  const?: string | number | boolean | null;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  /** false: no other field is accepted; a schema: the type of every other field. */
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
  examples?: unknown[];
  default?: unknown;
}

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';

/** What the generator reads from the TypeScript types of the contracts (see generate/wire-schemas.ts). */
export interface WireSchemaSet {
  /** The named answer types and every named type they use. */
  components: Record<string, JsonSchema>;
  /** Each op's answer: a $ref into components. */
  responses: Record<string, JsonSchema>;
  /**
   * Request classes (ops' and the classes nested in them): the class's doc comment, and per field
   * its doc comment and its TypeScript type, for the fields whose validators do not say a type.
   */
  requests: Record<string, { description?: string; fields: Record<string, { description?: string; schema: JsonSchema }> }>;
}
