export * from './runs.service';
export * from './model-prices';
