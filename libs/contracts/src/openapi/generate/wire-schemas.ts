// Build-time only: reads the contracts' TypeScript types with the compiler. Nothing at run time
// imports this file (the contracts' index does not export it), so `typescript` stays a dev tool.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import type { JsonSchema, JsonType, WireSchemaSet } from '../json-schema';

const OPS_FILE = join('libs', 'contracts', 'src', 'ops.ts');
const CONTRACTS_DIR = join('libs', 'contracts', 'src');

/** The repository root: the nearest folder above `from` that holds the contracts. */
export function findRepoRoot(from: string = __dirname): string {
  let dir = resolve(from);
  while (!existsSync(join(dir, OPS_FILE))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no ${OPS_FILE} above ${from}`);
    dir = parent;
  }
  return dir;
}

/**
 * The JSON Schemas of every op's answer (from the `answers<T>()` of its entry in Ops), of the
 * named types they use, and the doc comments and field types of the request classes.
 *
 * Fails when an op declares no answer, when an answer type holds `unknown` or `any` outside a
 * free-form object (metadata), or when two different types share a name.
 */
export function generateWireSchemas(root: string = findRepoRoot()): WireSchemaSet {
  const opsPath = join(root, OPS_FILE);
  const program = ts.createProgram([opsPath], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    strict: true,
    experimentalDecorators: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(opsPath);
  if (!source) throw new Error(`cannot read ${opsPath}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  const opsSymbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'Ops');
  if (!opsSymbol) throw new Error('ops.ts exports no Ops');
  const opsType = checker.getTypeOfSymbol(opsSymbol);

  const walker = new SchemaWalker(checker, join(root, CONTRACTS_DIR));
  const responses: Record<string, JsonSchema> = {};
  const requestClasses: ts.Type[] = [];
  for (const op of opsType.getProperties()) {
    const entry = checker.getTypeOfSymbol(op);
    const answer = entry.getProperty('response');
    const phantom = answer && checker.getTypeOfSymbol(answer).getProperty('__answer');
    if (!phantom) throw new Error(`op ${op.name} declares no answer type (response: answers<T>())`);
    responses[op.name] = walker.schemaOf(checker.getNonNullableType(checker.getTypeOfSymbol(phantom)), `${op.name} answer`);
    const request = entry.getProperty('request');
    const instance = request && checker.getTypeOfSymbol(request).getConstructSignatures()[0]?.getReturnType();
    if (!instance) throw new Error(`op ${op.name} names no request class`);
    requestClasses.push(instance);
  }
  if (walker.loose.length > 0) throw new Error(`answer types that do not say what crosses the wire (unknown/any): ${walker.loose.join(', ')}`);
  return { components: sortKeys(walker.components), responses, requests: sortKeys(requestDocs(checker, walker, requestClasses)) };
}

/** Doc comments and TypeScript field types of the request classes and the classes nested in them. */
function requestDocs(checker: ts.TypeChecker, walker: SchemaWalker, roots: ts.Type[]): WireSchemaSet['requests'] {
  const out: WireSchemaSet['requests'] = {};
  const queue = [...roots];
  while (queue.length > 0) {
    const type = queue.shift()!;
    const name = type.getSymbol()?.name;
    if (!name || out[name]) continue;
    const fields: Record<string, { description?: string; schema: JsonSchema }> = {};
    for (const prop of checker.getPropertiesOfType(type)) {
      const propType = checker.getNonNullableType(checker.getTypeOfSymbol(prop));
      for (const nested of [propType, ...(checker.isArrayType(propType) ? checker.getTypeArguments(propType as ts.TypeReference) : [])]) {
        if (nested.getSymbol()?.flags !== undefined && (nested.getSymbol()!.flags & ts.SymbolFlags.Class) !== 0) queue.push(nested);
      }
      // A hint only: the request schema itself comes from the validators (openapi/request-schema.ts).
      const description = docOf(checker, prop);
      fields[prop.name] = { ...(description ? { description } : {}), schema: walker.hintOf(propType) };
    }
    const description = docOf(checker, type.getSymbol()!);
    out[name] = { ...(description ? { description } : {}), fields };
  }
  return out;
}

function docOf(checker: ts.TypeChecker, symbol: ts.Symbol): string | undefined {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  return text === '' ? undefined : text.replace(/\s*\n\s*/g, ' ');
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** TypeScript types to JSON Schema: named interfaces and object aliases become components. */
class SchemaWalker {
  readonly components: Record<string, JsonSchema> = {};
  /** Where an answer type says `unknown` or `any`. */
  readonly loose: string[] = [];
  private readonly origins = new Map<string, ts.Symbol>();
  /** While computing a hint: components are not recorded, and classes are named, not expanded. */
  private hinting = false;

  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly contractsDir: string,
  ) {}

  hintOf(type: ts.Type): JsonSchema {
    this.hinting = true;
    try {
      return this.schemaOf(type, '(request hint)', true);
    } finally {
      this.hinting = false;
    }
  }

  schemaOf(type: ts.Type, path: string, freeForm = false): JsonSchema {
    const f = type.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) {
      if (!freeForm && !this.hinting) this.loose.push(path);
      return {};
    }
    if (f & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (f & ts.TypeFlags.Union) return this.unionOf((type as ts.UnionType).types, path, freeForm);
    if (f & ts.TypeFlags.String) return { type: 'string' };
    if (f & ts.TypeFlags.Number) return { type: 'number' };
    if (f & ts.TypeFlags.Null) return { type: 'null' };
    if (f & ts.TypeFlags.StringLiteral) return { type: 'string', const: (type as ts.StringLiteralType).value };
    if (f & ts.TypeFlags.NumberLiteral) return { type: 'number', const: (type as ts.NumberLiteralType).value };
    if (f & ts.TypeFlags.BooleanLiteral) return { type: 'boolean', const: this.checker.typeToString(type) === 'true' };
    if (this.checker.isArrayType(type) || this.checker.isTupleType(type)) {
      const [element] = this.checker.getTypeArguments(type as ts.TypeReference);
      return { type: 'array', items: element ? this.schemaOf(element, `${path}[]`, freeForm) : {} };
    }
    if (f & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) {
      const name = this.componentName(type);
      if (!name) return this.objectOf(type, path, freeForm);
      if (this.hinting) return { $ref: `#/components/schemas/${name}` };
      if (!this.components[name]) {
        // Placeholder first: a type that refers to itself ends at its $ref.
        this.components[name] = {};
        const description = docOf(this.checker, type.aliasSymbol ?? type.getSymbol()!);
        this.components[name] = { ...(description ? { description } : {}), ...this.objectOf(type, name, freeForm) };
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    throw new Error(`${path}: no JSON Schema for the type ${this.checker.typeToString(type)}`);
  }

  /** The component name of an interface, class or object alias declared in the contracts; none for anonymous and library types. */
  private componentName(type: ts.Type): string | undefined {
    const symbol = type.aliasSymbol ?? type.getSymbol();
    if (!symbol || symbol.name.startsWith('__')) return undefined;
    if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias))) return undefined;
    const declaration = symbol.declarations?.[0];
    if (!declaration || !resolve(declaration.getSourceFile().fileName).startsWith(this.contractsDir)) return undefined;
    if ((type.aliasTypeArguments?.length ?? 0) > 0 || ((type as ts.TypeReference).typeArguments?.length ?? 0) > 0) {
      throw new Error(`${symbol.name}: generic types have no one schema; give the instantiation a name`);
    }
    const seen = this.origins.get(symbol.name);
    if (seen && seen !== symbol) throw new Error(`two wire types are named ${symbol.name}`);
    this.origins.set(symbol.name, symbol);
    return symbol.name;
  }

  private objectOf(type: ts.Type, path: string, freeForm: boolean): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const prop of this.checker.getPropertiesOfType(type)) {
      const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
      const propType = this.checker.getTypeOfSymbol(prop);
      // `undefined` (an optional field) is dropped by unionOf; `null` stays a value.
      const schema = this.schemaOf(propType, `${path}.${prop.name}`, freeForm);
      const description = docOf(this.checker, prop);
      properties[prop.name] = description ? { description, ...schema } : schema;
      if (!optional) required.push(prop.name);
    }
    const index = this.checker.getIndexInfoOfType(type, ts.IndexKind.String);
    const out: JsonSchema = { type: 'object' };
    if (Object.keys(properties).length > 0) out.properties = properties;
    if (required.length > 0) out.required = required;
    // A string index is a map or a free-form object: its values may be anything JSON when unknown.
    if (index) out.additionalProperties = this.schemaOf(index.type, `${path}[key]`, true);
    return out;
  }

  private unionOf(members: readonly ts.Type[], path: string, freeForm: boolean): JsonSchema {
    let nullable = false;
    const primitives = new Set<JsonType>();
    const strings: string[] = [];
    const numbers: number[] = [];
    const booleans = new Set<boolean>();
    const others: JsonSchema[] = [];
    for (const m of members) {
      const f = m.flags;
      if (f & ts.TypeFlags.Undefined) continue;
      if (f & ts.TypeFlags.Null) nullable = true;
      else if (f & ts.TypeFlags.StringLiteral) strings.push((m as ts.StringLiteralType).value);
      else if (f & ts.TypeFlags.NumberLiteral) numbers.push((m as ts.NumberLiteralType).value);
      else if (f & ts.TypeFlags.BooleanLiteral) booleans.add(this.checker.typeToString(m) === 'true');
      else if (f & ts.TypeFlags.String) primitives.add('string');
      else if (f & ts.TypeFlags.Number) primitives.add('number');
      else others.push(this.schemaOf(m, path, freeForm));
    }
    if (booleans.size === 2) primitives.add('boolean');
    const groups: JsonSchema[] = [];
    if (primitives.size > 0) groups.push({ type: primitives.size === 1 ? [...primitives][0]! : [...primitives] });
    if (strings.length > 0 && !primitives.has('string')) groups.push({ type: 'string', enum: strings });
    if (numbers.length > 0 && !primitives.has('number')) groups.push({ type: 'number', enum: numbers });
    if (booleans.size === 1) groups.push({ type: 'boolean', const: [...booleans][0]! });
    groups.push(...others);
    if (groups.length === 1) {
      const only = groups[0]!;
      if (!nullable) return only;
      // `T | null` stays one schema where it can: the type list gains "null" (and the enum null).
      if (only.type !== undefined && !only.$ref) {
        const { const: constant, ...rest } = only;
        const types = Array.isArray(only.type) ? only.type : [only.type];
        const values = constant !== undefined ? [constant] : only.enum;
        return { ...rest, type: [...types, 'null'], ...(values ? { enum: [...values, null] } : {}) };
      }
    }
    return { anyOf: [...groups, ...(nullable ? [{ type: 'null' as const }] : [])] };
  }
}
