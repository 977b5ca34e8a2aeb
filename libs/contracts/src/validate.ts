import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { LoomError, type FieldError } from './errors';
import { printableKey, soundCopy, type ShapeFault } from './json-shape';
import { Limits } from './limits';
import { cacheValidationMetadata } from './validation-metadata-cache';

cacheValidationMetadata();

/**
 * Turns an untrusted JSON value into a validated instance of `type`, or throws a 400 naming
 * every bad field, each once, in one answer. Unknown fields are refused too: a typo such as
 * `thread-id` must not be silently ignored.
 *
 * The shape of the whole value is checked first (soundCopy): depth, lone surrogates in any
 * string or key, reserved keys, numbers past 2^53. class-transformer and class-validator
 * recurse and copy by assignment, so they only ever see the sound copy: over-deep branches
 * emptied, bad keys left out, lone surrogates replaced. Every field, nested ones included,
 * still goes through its own rules, so a broken item of an array does not hide a bad field of
 * another item. Paths are dotted, array items by index: `pull_requests.1.number`. Each key in
 * them is named by `nameKey`: printableKey unless the caller withholds some (the op API withholds
 * a key that reads as high, which this library cannot tell).
 */
export function validateInput<T extends object>(type: new () => T, input: unknown, nameKey: (key: string) => string = printableKey): T {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new LoomError('invalid_input', 'the request body must be a JSON object', {
      fields: [{ field: '(body)', message: 'expected a JSON object' }],
    });
  }
  const { value: sound, errors: shape } = soundCopy(input, Limits.maxJsonDepth, nameKey);
  const { instance, errors } = check(type, sound as object, nameKey);
  if (shape.length === 0 && errors.length === 0) return instance;
  throw invalid(merge(shape, errors));
}

/**
 * One entry per field. A shape fault is named first. For a number past 2^53 the field's own
 * rule (its range) is the clearer message when it has one; for the other faults the value the
 * rules saw was a stand-in, so their verdict on it, or on anything inside an emptied branch,
 * is dropped.
 */
function merge(shape: Array<FieldError & { fault: ShapeFault }>, rules: FieldError[]): FieldError[] {
  const byField = new Map(rules.map((f) => [f.field, f]));
  const emptied = shape.filter((s) => s.fault === 'depth').map((s) => `${s.field}.`);
  const named = new Set<string>();
  const out: FieldError[] = [];
  for (const s of shape) {
    if (named.has(s.field)) continue;
    named.add(s.field);
    const own = byField.get(s.field);
    out.push(s.fault === 'number' && own ? own : { field: s.field, message: s.message });
  }
  for (const f of rules) {
    if (named.has(f.field) || emptied.some((prefix) => f.field.startsWith(prefix))) continue;
    named.add(f.field);
    out.push(f);
  }
  return out;
}

/** The field rules of `type` on a body whose shape is sound. */
function check<T extends object>(type: new () => T, input: object, nameKey: (key: string) => string): { instance: T; errors: FieldError[] } {
  const instance = plainToInstance(type, input, { enableImplicitConversion: false });
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    // An op with no fields (settings.get) must still validate; unknown fields are caught above.
    forbidUnknownValues: false,
    validationError: { target: false },
  });
  return { instance, errors: flatten(errors, nameKey) };
}

function invalid(fields: FieldError[]): LoomError {
  const named = fields.slice(0, Limits.maxFieldErrors);
  return new LoomError('invalid_input', `invalid input: ${named.map((f) => f.field).join(', ')}`, { fields: named });
}

/**
 * The rules that say what kind of value a field takes. When one of them fails it is the
 * message to show: a string where a number goes must read "must be an integer", not the
 * `Max` rule's "must not be greater than" that also fails on it.
 */
const KIND_RULES = ['whitelistValidation', 'isDefined', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject', 'nestedValidation', 'isIn', 'isEnum'];

function flatten(errors: ValidationError[], nameKey: (key: string) => string, prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const property = nameKey(String(error.property));
    const field = prefix ? `${prefix}.${property}` : property;
    const constraints = error.constraints ?? {};
    const kind = KIND_RULES.find((name) => name in constraints);
    // One entry per field: the kind of value first, else the first broken rule.
    const message = kind !== undefined ? constraints[kind] : Object.values(constraints)[0];
    if (message !== undefined) out.push({ field, message: message.replace(/^property [\s\S]* should not exist$/, 'unknown field') });
    // A section that must be an object but is an array: its items were validated as sections
    // too (ValidateNested takes either), and their faults say nothing the field's own does not.
    if (error.children?.length && !('isObject' in constraints)) out.push(...flatten(error.children, nameKey, field));
  }
  return out;
}
