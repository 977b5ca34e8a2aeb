import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { LoomError, type FieldError } from './errors';

/**
 * Turns an untrusted JSON value into a validated instance of `type`, or throws a 400 naming
 * every bad field. Unknown fields are refused too: a typo such as `thread-id` must not be
 * silently ignored.
 */
export function validateInput<T extends object>(type: new () => T, input: unknown): T {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new LoomError('invalid_input', 'the request body must be a JSON object', {
      fields: [{ field: '(body)', message: 'expected a JSON object' }],
    });
  }
  const instance = plainToInstance(type, input, { enableImplicitConversion: false });
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    // An op with no fields (settings.get) must still validate; unknown fields are caught above.
    forbidUnknownValues: false,
    validationError: { target: false },
  });
  if (errors.length > 0) {
    const fields = flatten(errors);
    throw new LoomError('invalid_input', `invalid input: ${fields.map((f) => f.field).join(', ')}`, { fields });
  }
  return instance;
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
