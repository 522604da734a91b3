// ESLint: typescript-eslint's recommended rules, plus two that need the types (the program is
// tsconfig.eslint.json). `npm run lint` runs it; `npx eslint --fix .` applies the fixable ones.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'coverage/**',
      'test/openapi/generated/**',
      'eval/.cache/**',
      '.dependency-cruiser.cjs',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
      // Everything here runs on Node (the client too: its tests and the scripts that pack it).
      globals: globals.node,
    },
    rules: {
      // A promise nobody awaits loses its rejection: await it, or write `void` where fire-and-forget
      // is deliberate, with a comment saying why.
      '@typescript-eslint/no-floating-promises': 'error',
      // Zero findings when added; kept so that an async callback where a sync one is expected, or an
      // `await` on a non-promise, stays caught.
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // `import { type A }` keeps a side-effect import in the JS; its fix writes `import type { A }`.
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // `let x` declared before a closure that reads it, assigned once below (services.ts's tool-set gauge).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `const { tools: _tools, ...envelope } = body` drops fields on purpose; `_` marks the unused.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // A function a newcomer can read in one screen: the service's and the packages' functions stay
    // within 80 lines of code (blank lines and comments not counted); a longer one is split into named
    // steps that return values. Data tables are exempt by being data: a route's documented responses
    // or a metric's definitions are module constants (SEARCH_ERROR_RESPONSES in src/schemas/search.ts),
    // which this rule never measures, not function bodies.
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // TypeScript itself reports undefined names in .ts files (typescript-eslint's advice).
    files: ['**/*.ts'],
    rules: { 'no-undef': 'off' },
  },
  {
    // Tests, benches and scripts read untyped JSON (responses, manifests, reports): typing each one
    // adds lines and no safety. Tests look for control characters on purpose (the sanitizers' output).
    files: ['test/**', 'packages/*/test/**', 'bench/**', 'scripts/**', 'eval/**', 'examples/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-control-regex': 'off' },
  },
);
