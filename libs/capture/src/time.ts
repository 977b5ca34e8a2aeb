import { isStrictIsoTime } from '@loom/contracts';

/**
 * A transcript line's timestamp as the ops take it (strict ISO 8601 with an offset), or nothing:
 * one odd timestamp must not get a whole batch of observations or usage reports refused.
 */
export function wireTime(value: string | undefined): string | undefined {
  if (value === undefined || isStrictIsoTime(value)) return value;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return isStrictIsoTime(iso) ? iso : undefined;
}

/** `{ ts }` when the timestamp can be sent, else nothing: spread into an observation or a usage report. */
export function tsField(value: string | undefined): { ts?: string } {
  const ts = wireTime(value);
  return ts === undefined ? {} : { ts };
}
