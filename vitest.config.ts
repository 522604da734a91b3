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
    exclude: ['test/container/**', 'test/reliability/**', '**/node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
