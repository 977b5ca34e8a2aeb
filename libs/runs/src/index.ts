export * from './runs.service';
