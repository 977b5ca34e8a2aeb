import { scanApiKeys } from './shapes/api-keys';
import { scanCardNumbers } from './shapes/card-numbers';
import { scanAttributeAssignments, scanPasswordAssignments } from './shapes/password-assignments';
import { scanPins } from './shapes/pins';
import { scanPrivateKeys } from './shapes/private-keys';
import { scanSsns } from './shapes/ssn';
import type { HighShape, HighShapeKind, ShapeScanner, ShapeSink } from './types';
import { normalisedView, originOf, unwrappedView, type TextView } from './normalize';
import { scanCommandCredentials } from './shapes/command-credentials';
import { scanUrlCredentials } from './shapes/url-credentials';

/** Most specific first, so the fast path usually stops at the cheapest, most certain scanner. */
const SCANNERS: readonly ShapeScanner[] = [
  scanApiKeys,
  scanPrivateKeys,
  scanPasswordAssignments,
  scanAttributeAssignments,
  scanUrlCredentials,
  scanCommandCredentials,
  scanCardNumbers,
  scanSsns,
  scanPins,
];

/** Key prefixes survive a line wrap only when the wrapped lines are joined again (normalize.ts). */
const WRAPPED_SCANNERS: readonly ShapeScanner[] = [scanApiKeys];

/** Every high shape in `text`, ordered by start offset (then by end). */
export function findHighShapes(text: string): HighShape[] {
  const shapes: HighShape[] = [];
  const collect = (shape: HighShape): boolean => {
    shapes.push(shape);
    return true;
  };
  scanViews(text, collect);
  return withoutNestedRepeats(shapes.sort(byPosition));
}

/** True as soon as one high shape is found; cheaper than `findHighShapes(text).length > 0`. */
export function readsAsHigh(text: string): boolean {
  return !scanViews(text, () => false);
}

/**
 * Runs the scanners over the text with paste artefacts undone, then the key scanner over the same
 * text with wrapped lines joined, reporting offsets into the text as written. Returns false when
 * the sink asked to stop.
 */
function scanViews(text: string, sink: ShapeSink): boolean {
  const view = normalisedView(text);
  if (!SCANNERS.every((scan) => scan(view.text, inOriginal(view, sink)))) return false;
  const unwrapped = unwrappedView(view);
  if (unwrapped === undefined) return true;
  return WRAPPED_SCANNERS.every((scan) => scan(unwrapped.text, inOriginal(unwrapped, sink)));
}

function inOriginal(view: TextView, sink: ShapeSink): ShapeSink {
  if (view.origin === undefined) return sink;
  return (shape) => sink({ kind: shape.kind, start: originOf(view, shape.start), end: originOf(view, shape.end - 1) + 1 });
}

/**
 * Whether `text.slice(start, start + length)` reads as high, e.g. the 240 characters shown plus the
 * 1,024 past them. A shape cut by the window edge counts only if the part inside still reads as
 * high. Out-of-range or non-finite bounds are clamped rather than thrown on: callers pass offsets
 * computed from other texts, and the safe answer for an empty window is "not high".
 */
export function readsAsHighWithin(text: string, start: number, length: number): boolean {
  const from = clampOffset(start, text.length);
  const to = clampOffset(from + (Number.isNaN(length) ? 0 : Math.max(0, length)), text.length);
  return to > from && readsAsHigh(text.slice(from, to));
}

function clampOffset(offset: number, textLength: number): number {
  if (Number.isNaN(offset)) return 0;
  return Math.min(textLength, Math.max(0, Math.floor(offset)));
}

function byPosition(a: HighShape, b: HighShape): number {
  return a.start - b.start || b.end - a.end;
}

/**
 * "Bearer <jwt>" is found both as a bearer token and as a JWT; one shape per secret is enough.
 * Shapes of different kinds over the same text are all kept: each is a true statement.
 */
function withoutNestedRepeats(sorted: readonly HighShape[]): HighShape[] {
  const kept: HighShape[] = [];
  const reachByKind = new Map<HighShapeKind, number>();
  for (const shape of sorted) {
    const reach = reachByKind.get(shape.kind);
    if (reach !== undefined && shape.end <= reach) continue;
    kept.push(shape);
    reachByKind.set(shape.kind, Math.max(reach ?? 0, shape.end));
  }
  return kept;
}
