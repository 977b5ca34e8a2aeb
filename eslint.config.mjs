// Type-checked lint for the whole workspace, and the module boundaries of STYLE.md enforced by
// Nx project tags (project.json). `npm run lint` must pass with zero warnings.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const TESTS = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'libs/testing/**/*.ts', 'e2e/**/*.ts'];

export default tseslint.config(
  { ignores: ['dist/**', 'libs/sdk/dist/**', 'node_modules/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A promise nobody awaits loses its error; every one is awaited, returned or marked `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // `typeof import('x')` stays allowed: it types the lazy require() of heavy optional modules.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            // The wire: imports nothing of ours, and neither Nest nor ClickHouse.
            {
              sourceTag: 'type:contracts',
              onlyDependOnLibsWithTags: ['type:contracts'],
              bannedExternalImports: ['@nestjs/*', '@clickhouse/*', 'chdb', 'nats'],
            },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform'] },
            // The published client: the wire's types and nothing of the server.
            { sourceTag: 'type:sdk', onlyDependOnLibsWithTags: ['type:contracts'], bannedExternalImports: ['@nestjs/*', '@clickhouse/*', 'chdb', 'nats'] },
            { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform'] },
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:data-access', 'type:domain'] },
            // The hosts (libs/hosts, one folder per process) compose libs into services; only apps
            // and tests import them, so no library can reach for another process's wiring (ADR 0019).
            { sourceTag: 'type:hosts', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:data-access', 'type:domain', 'type:hosts'] },
            // Apps start hosts; none imports another app, and the test harness is for tests.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:data-access', 'type:domain', 'type:hosts'] },
            // The test harness, the e2e tier and the benchmarks.
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:data-access', 'type:domain', 'type:hosts', 'type:sdk', 'type:testing'] },
          ],
        },
      ],
    },
  },
  {
    // The benchmarks parse whatever JSON Loom answers.
    files: ['bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests may reach into the harness (libs/testing) from any project; production code may not.
    files: TESTS,
    rules: {
      '@nx/enforce-module-boundaries': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
