export * from './json-schema';
export * from './document';
