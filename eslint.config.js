// Lint rules: the recommended sets of ESLint and typescript-eslint (syntax only, no
// type information, so the lint stays a few seconds on two cores), plus the few
// rules this codebase leans on. Formatting is prettier's job (.prettierrc.json).
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');

module.exports = tseslint.config(
  {
    ignores: [
      'dist/',
      'examples/*/dist/',
      'build/',
      'coverage/',
      'node_modules/',
      'src/adapters/shim/wire/proto/generated/',
      '.bench-tmp/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused arguments are kept when they document an interface; prefix with _ to say so.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Lazy require() is deliberate in the composition root and the fast paths: a
      // module is loaded only by the command that needs it (start-up time, see docs/performance.md).
      '@typescript-eslint/no-require-imports': 'off',
      // prettier wraps code at 120; only text a reader searches for whole (messages) may run longer.
      'max-len': [
        'error',
        { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'CallExpression[callee.property.name="only"]', message: 'no .only in committed tests' },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'examples/*/test/**/*.ts'],
    languageOptions: { globals: { ...globals.jest } },
  },
);
