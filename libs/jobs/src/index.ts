export * from './stored-job-queue';
