/**
 * A WHERE clause and its query parameters, built together: each condition names its values as
 * `{key:Type}` placeholders and brings them along, so a value never reaches the SQL text.
 */
export class Conditions {
  private readonly parts: string[] = [];
  readonly params: Record<string, unknown>;

  constructor(first: string, params: Record<string, unknown> = {}) {
    this.parts.push(first);
    this.params = { ...params };
  }

  /** Adds `condition` when `value` is given (not undefined), binding it as `key`. */
  when(value: unknown, condition: string, key: string): this {
    if (value === undefined) return this;
    this.parts.push(condition);
    this.params[key] = value;
    return this;
  }

  toString(): string {
    return this.parts.join(' AND ');
  }
}
