export * from './tracker.service';
export * from './duplicates/ranker';
export * from './duplicates/resolve';
export * from './duplicates/evidence';
export * from './links/fix-references';
export { describeUrl } from './source/source-client';
