// Lint: typescript-eslint's recommended rules (syntax-level, fast); types are checked by `npm run typecheck`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', 'test-artifacts/', 'src/ops/page/**', '.ci/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', performance: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', Response: 'readonly', global: 'readonly', globalThis: 'readonly', NodeJS: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    // Functions read as steps: none over 80 lines in the shipped code (tests' describe blocks are
    // tables of cases and are not held to it).
    files: ['src/**/*.ts', 'config/**/*.ts', 'jobs/**/*.ts', 'bin/**/*.{js,mjs,cjs,ts}'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Exempt: declarative tables, read as data rather than steps (a migration's statements).
    files: ['src/warehouse/migration-*.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    // The bin's CommonJS files (bin/package.json): Node starts no ES module loader for them.
    files: ['bin/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
