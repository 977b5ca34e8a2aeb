import { IsObject, IsString, Matches, MaxLength, MinLength, registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';
import { jsonDepth } from './json-shape';
import { Limits } from './limits';

export const NAMESPACE_PATTERN = /^(@me|[A-Za-z0-9][A-Za-z0-9_.:-]{0,127})$/;
export const AGENT_PATTERN = /^(\*|[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127})$/;

/**
 * The field may be left out. Unlike class-validator's `null` is not "left out": a
 * `user_id: null` is refused by the field's own rules instead of read as no user (or a user).
 */
export function Optional(): PropertyDecorator {
  return ValidateIf((object: object, value: unknown) => value !== undefined) as PropertyDecorator;
}

/** Fields every op accepts: which namespace it acts on and as which agent. */
export class NamespacedRequest {
  /** Defaults to the token's namespace when the token has exactly one. */
  @Optional()
  @IsString()
  @Matches(NAMESPACE_PATTERN, { message: 'namespace must be 1-128 characters of letters, digits, _ . : - (or "@me")' })
  namespace?: string;
}

export class AgentScopedRequest extends NamespacedRequest {
  /** The agent writing or reading; "default" when omitted. Reads accept "*" for every agent. */
  @Optional()
  @IsString()
  @Matches(AGENT_PATTERN, { message: 'agent must be 1-128 characters of letters, digits, _ . : @ - (or "*")' })
  agent?: string;
}

/**
 * An http(s) URL whose authority is a host (and port) only: no `user:password@`. Credentials in
 * a URL would be stored, shown and logged with it, where a password field is never answered.
 * A backslash is refused in the authority as URL parsers read it as a slash.
 */
export const HTTP_URL_PATTERN = /^https?:\/\/[^\s/?#@\\]+(?:[/?#]\S*)?$/;
/** The same, without a query or fragment. */
export const HTTP_URL_NO_QUERY_PATTERN = /^https?:\/\/[^\s/?#@\\]+(?:\/[^\s?#]*)?$/;

export function IdField(): PropertyDecorator {
  return (target, key) => {
    IsString()(target, key);
    MinLength(1)(target, key);
    MaxLength(Limits.maxIdLength)(target, key);
  };
}

/** A strict ISO 8601 date, or time with its offset (the day itself is checked by isStrictIsoTime). */
export const ISO_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2})))?$/;

/**
 * True for a strict ISO 8601 date (`2026-11-29`, read as midnight UTC) or time with its offset
 * (`2026-11-29T10:00:00.123Z`, `...+02:00`) that names a real day and fits a DateTime64 column.
 * `Date.parse` takes "1", "2026-02-30" and "+275760-09-13T00:00:00Z"; this does not.
 */
export function isStrictIsoTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = ISO_TIME_PATTERN.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < Limits.minYear || year > Limits.maxYear || month < 1 || month > 12 || day < 1) return false;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return false;
  if (m[8] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return false;
  return true;
}

/** A strict ISO 8601 date or time (see isStrictIsoTime). */
export function IsoTime(options?: ValidationOptions): PropertyDecorator {
  return (target, key) =>
    registerDecorator({
      name: 'isoTime',
      target: target.constructor,
      propertyName: key as string,
      options: { message: `$property must be an ISO 8601 date (YYYY-MM-DD) or time with its offset (YYYY-MM-DDTHH:MM:SSZ), years ${Limits.minYear}-${Limits.maxYear}`, ...options },
      validator: { validate: isStrictIsoTime },
    });
}

/**
 * A free-form JSON object (`metadata`): an object, nested at most Limits.maxMetadataDepth
 * deep and at most Limits.maxMetadataChars long as JSON. Its strings and keys are checked
 * with the rest of the body (validateInput).
 */
export function JsonObjectField(): PropertyDecorator {
  return (target, key) => {
    IsObject()(target, key);
    registerDecorator({
      name: 'jsonObjectBounds',
      target: target.constructor,
      propertyName: key as string,
      options: { message: `$property may nest at most ${Limits.maxMetadataDepth} levels and hold at most ${Limits.maxMetadataChars} characters as JSON` },
      validator: {
        validate: (value: unknown) =>
          value === null || typeof value !== 'object' || (jsonDepth(value, Limits.maxMetadataDepth) <= Limits.maxMetadataDepth && JSON.stringify(value).length <= Limits.maxMetadataChars),
      },
    });
  };
}
