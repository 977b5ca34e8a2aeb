export type { CorpusSample } from './types';
export { highSamples } from './high';
export { nearMissSamples } from './near-miss';
export { measureDetector, type CorpusMeasurement, type KindFigures } from './measure';
