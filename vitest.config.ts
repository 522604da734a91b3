import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run the TypeScript sources of the workspaces directly, so no build is needed first.
const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      '@catalog-search/core': src('./packages/core/src/index.ts'),
      '@catalog-search/client': src('./packages/client/src/index.ts'),
    },
  },
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // test/browser needs Chromium: `npm run test:browser`.
    exclude: ['test/container/**', 'test/reliability/**', 'test/browser/**', '**/node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // `npm run test:coverage`: the floor sits 3-4 points under the measured figures (docs/development.md).
    // Code run in child processes (the service as a process, the worker threads) is not counted.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      // A run with a failing test still prints the figures (a slow machine can time out a process test).
      reportOnFailure: true,
      thresholds: { statements: 90, branches: 85, functions: 90, lines: 91 },
    },
  },
});
