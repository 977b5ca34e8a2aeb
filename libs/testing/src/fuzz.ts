/**
 * What the reliability section `fuzz` needs from the test kit, apart from the jest-only parts
 * of its index (`@loom/testing/fuzz`).
 */
export { startTestLoom, type TestLoom } from './embedded-loom';
export { rowCounts } from './storage-inspection';
export { fuzzOps, type FuzzFailure, type FuzzReport } from './op-fuzz';
