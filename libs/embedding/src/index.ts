export * from './embed.batcher';
export * from './embed.controller';
export * from './embedder.module';
export * from './tokens';
