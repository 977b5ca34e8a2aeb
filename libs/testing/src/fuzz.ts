/**
 * What the reliability section `fuzz` needs from the test kit, apart from the jest-only parts
 * of its index (`@loom/testing/fuzz`).
 */
export { startTestLoom, type TestLoom } from './embedded-loom';
export { trackWrites } from './write-tracker';
export { fuzzOps, type FuzzFailure, type FuzzReport } from './op-fuzz';
