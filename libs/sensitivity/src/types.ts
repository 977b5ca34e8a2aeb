export type HighShapeKind = 'api_key' | 'private_key' | 'password_assignment' | 'card_number' | 'ssn' | 'pin';

/**
 * Where a high shape sits in the input. It deliberately carries no copy of the matched text, so a
 * shape can be logged, stored or sent anywhere without leaking the secret it points at.
 */
export interface HighShape {
  kind: HighShapeKind;
  start: number;
  end: number;
}

/**
 * Receives each shape as a scanner finds it and answers whether to keep scanning, so that
 * `readsAsHigh` can stop at the first shape. (Callbacks rather than generators: V8 cannot
 * optimise a long loop inside a generator mid-run, which made a cold 1 MiB scan several times
 * slower.)
 */
export type ShapeSink = (shape: HighShape) => boolean;

/** One detector per shape family. Returns false when the sink asked it to stop. */
export type ShapeScanner = (text: string, sink: ShapeSink) => boolean;
