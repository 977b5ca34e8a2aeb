export type { HighShape, HighShapeKind } from './types';
export { findHighShapes, readsAsHigh, readsAsHighWithin } from './detector';
