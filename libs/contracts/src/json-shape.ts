import type { FieldError } from './errors';
import { Limits } from './limits';

/**
 * Keys refused anywhere in a request. Each one changes what a plain object means when it is
 * copied by assignment (class-transformer, spreads, merges) instead of being data, so Loom
 * refuses them rather than hoping every copy downstream uses defineProperty.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * What is wrong with the shape of a parsed JSON value, whatever op it is for: nesting deeper
 * than `maxDepth`, a string or key that is not well-formed Unicode (a lone UTF-16 surrogate
 * cannot be stored, hashed or encoded), a forbidden key, or a number no column can hold
 * exactly (not finite, or an integer past 2^53). Iterative, so a value nested 100,000 deep is
 * named, not a stack overflow; it stops at the first over-deep branch since nothing inside
 * it will be looked at.
 */
export function inspectJson(value: unknown, maxDepth: number = Limits.maxJsonDepth): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0 && errors.length < Limits.maxFieldErrors) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (!isWellFormed(current)) errors.push({ field: path || '(body)', message: 'is not well-formed Unicode (a lone UTF-16 surrogate)' });
      continue;
    }
    if (typeof current === 'number') {
      if (!Number.isFinite(current) || (Number.isInteger(current) && !Number.isSafeInteger(current))) {
        errors.push({ field: path || '(body)', message: `is out of range (numbers must be finite and integers at most ${Number.MAX_SAFE_INTEGER} in size)` });
      }
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= maxDepth) {
      errors.push({ field: path || '(body)', message: `is nested deeper than ${maxDepth} levels` });
      continue;
    }
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: path ? `${path}.${i}` : String(i), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const child = path ? `${path}.${printableKey(key)}` : printableKey(key);
      if (!isWellFormed(key)) {
        errors.push({ field: child, message: 'the key is not well-formed Unicode (a lone UTF-16 surrogate)' });
        continue;
      }
      if (FORBIDDEN_KEYS.has(key)) {
        errors.push({ field: child, message: `the key "${key}" is not allowed (reserved: ${[...FORBIDDEN_KEYS].join(', ')})` });
        continue;
      }
      stack.push({ value: (current as Record<string, unknown>)[key], path: child, depth: depth + 1 });
    }
  }
  return errors;
}

/** In a `u` regex a surrogate pair is one code point, so \p{Cs} matches only a lone half. */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/** True when the string is well-formed UTF-16: no lone surrogate (String.prototype.isWellFormed, before ES2024). */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** How deep a value nests (an object or array is one level); stops counting past `cap`. */
export function jsonDepth(value: unknown, cap: number): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > cap) return deepest;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push({ value: child, depth: level });
  }
  return deepest;
}

/**
 * How deep the JSON text nests, read without parsing it (brackets outside strings): lets a
 * gateway refuse 5,000 nested arrays before anything recursive sees them. Stops past `cap`.
 */
export function rawJsonDepth(text: string, cap: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > cap) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/** What made a value unsound (see soundCopy). */
export type ShapeFault = 'depth' | 'key' | 'string' | 'number';

/**
 * A copy of a parsed JSON value that class-transformer and class-validator may safely walk,
 * with what inspectJson would say of the original, each error tagged with its kind. A branch
 * nested deeper than `maxDepth` becomes an empty container of its kind; a forbidden or
 * ill-formed key is left out; a lone surrogate becomes U+FFFD; numbers are kept (each field's
 * own range rule then names them). So the field rules still judge every other field, nested
 * ones included, and one answer names every bad field. Recursion is bounded by `maxDepth`.
 * Paths name array items by index after a dot (`pull_requests.1.number`), as class-validator does;
 * each key in them is named by `nameKey` (printableKey unless the caller withholds some).
 */
export function soundCopy(value: unknown, maxDepth: number = Limits.maxJsonDepth, nameKey: (key: string) => string = printableKey): { value: unknown; errors: Array<FieldError & { fault: ShapeFault }> } {
  const errors: Array<FieldError & { fault: ShapeFault }> = [];
  // A path is built only when an error names it: naming a key can mean running the detector on
  // it (keyAsNamed), and a sound body, the common case, names none.
  type Path = () => string;
  const child = (parent: Path | undefined, segment: () => string): Path => {
    let named: string | undefined;
    return () => (named ??= parent ? `${parent()}.${segment()}` : segment());
  };
  const field = (path: Path | undefined): string => (path ? path() : '(body)');
  const walk = (current: unknown, path: Path | undefined, depth: number): unknown => {
    if (typeof current === 'string') {
      if (isWellFormed(current)) return current;
      errors.push({ field: field(path), message: 'is not well-formed Unicode (a lone UTF-16 surrogate)', fault: 'string' });
      return current.replace(LONE_SURROGATES, '\uFFFD');
    }
    if (typeof current === 'number') {
      if (!Number.isFinite(current) || (Number.isInteger(current) && !Number.isSafeInteger(current))) {
        errors.push({ field: field(path), message: `is out of range (numbers must be finite and integers at most ${Number.MAX_SAFE_INTEGER} in size)`, fault: 'number' });
      }
      return current;
    }
    if (current === null || typeof current !== 'object') return current;
    if (depth >= maxDepth) {
      errors.push({ field: field(path), message: `is nested deeper than ${maxDepth} levels`, fault: 'depth' });
      return Array.isArray(current) ? [] : {};
    }
    if (Array.isArray(current)) return current.map((item, i) => walk(item, child(path, () => String(i)), depth + 1));
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(current)) {
      const keyPath = child(path, () => nameKey(key));
      if (!isWellFormed(key)) {
        errors.push({ field: keyPath(), message: 'the key is not well-formed Unicode (a lone UTF-16 surrogate)', fault: 'key' });
        continue;
      }
      if (FORBIDDEN_KEYS.has(key)) {
        errors.push({ field: keyPath(), message: `the key "${key}" is not allowed (reserved: ${[...FORBIDDEN_KEYS].join(', ')})`, fault: 'key' });
        continue;
      }
      out[key] = walk((current as Record<string, unknown>)[key], keyPath, depth + 1);
    }
    return out;
  };
  return { value: walk(value, undefined, 0), errors };
}

/** A key as it is named in an error: quoted when it would not read as one path segment. */
export function printableKey(key: string): string {
  const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  return /^[A-Za-z0-9_-]+$/.test(shown) ? shown : JSON.stringify(shown.replace(LONE_SURROGATES, '\uFFFD'));
}
