export type { CorpusSample } from './types';
export { bareProviderKeys, highSamples } from './high';
export { nearMissSamples } from './near-miss';
export { measureDetector, type CorpusMeasurement, type KindFigures } from './measure';
