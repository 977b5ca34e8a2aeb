import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { LoomError, type FieldError } from './errors';
import { FORBIDDEN_KEYS, inspectJson, isWellFormed } from './json-shape';
import { Limits } from './limits';

/**
 * Turns an untrusted JSON value into a validated instance of `type`, or throws a 400 naming
 * every bad field. Unknown fields are refused too: a typo such as `thread-id` must not be
 * silently ignored.
 *
 * The shape of the whole value is checked first, iteratively (inspectJson): depth, lone
 * surrogates in any string or key, reserved keys, numbers past 2^53. class-transformer and
 * class-validator recurse and copy by assignment, so they only ever see a value that passed.
 */
export function validateInput<T extends object>(type: new () => T, input: unknown): T {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new LoomError('invalid_input', 'the request body must be a JSON object', {
      fields: [{ field: '(body)', message: 'expected a JSON object' }],
    });
  }
  const shape = inspectJson(input, Limits.maxJsonDepth);
  if (shape.length > 0) {
    // Every bad field is named: the fields whose values are sound still go through their rules.
    // Top-level entries are judged one by one (not from the printed paths, which quote odd keys).
    const entries = Object.entries(input);
    const broken = new Set(entries.filter(([key, value]) => !isWellFormed(key) || FORBIDDEN_KEYS.has(key) || inspectJson(value, Limits.maxJsonDepth - 1).length > 0).map(([key]) => key));
    const sound = Object.fromEntries(entries.filter(([key]) => !broken.has(key)));
    const others = check(type, sound).errors.filter((f) => !broken.has(rootOf(f.field)));
    throw invalid([...shape, ...others]);
  }
  const { instance, errors } = check(type, input);
  if (errors.length > 0) throw invalid(errors);
  return instance;
}

/** The field rules of `type` on a body whose shape is sound. */
function check<T extends object>(type: new () => T, input: object): { instance: T; errors: FieldError[] } {
  const instance = plainToInstance(type, input, { enableImplicitConversion: false });
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    // An op with no fields (settings.get) must still validate; unknown fields are caught above.
    forbidUnknownValues: false,
    validationError: { target: false },
  });
  return { instance, errors: flatten(errors) };
}

/** The top-level field a path starts with (`metadata.a[0]` → `metadata`). */
function rootOf(field: string): string {
  return field.split(/[.[]/)[0]!;
}

function invalid(fields: FieldError[]): LoomError {
  const named = fields.slice(0, Limits.maxFieldErrors);
  return new LoomError('invalid_input', `invalid input: ${named.map((f) => f.field).join(', ')}`, { fields: named });
}

function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const messages = Object.values(error.constraints ?? {}).map((m) =>
      m.replace(/^property (\S+) should not exist$/, 'unknown field'),
    );
    // One entry per field: the first broken rule is what the caller must fix first.
    if (messages.length > 0) out.push({ field, message: messages[0]! });
    if (error.children?.length) out.push(...flatten(error.children, field));
  }
  return out;
}
