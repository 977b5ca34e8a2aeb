// One jest config for the whole workspace: unit (*.spec.ts), integration (*.int-spec.ts) and
// topology (e2e/*.e2e-spec.ts) tiers. Files run in parallel workers; each worker owns one chDB
// data directory (the engine allows one per process) and each test file its own database.
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.base.json');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/e2e', '<rootDir>/bench'],
  testMatch: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
  },
  moduleNameMapper: pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' }),
  setupFiles: ['<rootDir>/libs/testing/src/jest.setup.ts'],
  // The real-data tier: required under CI, else one closing line when it was not run (libs/testing/src/real-data.ts).
  globalSetup: '<rootDir>/libs/testing/src/jest.global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/jest.global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
