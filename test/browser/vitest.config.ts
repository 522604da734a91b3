import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The browser suite (`npm run test:browser`): pages driven in Debian's Chromium (/usr/bin/chromium, which
// .ci/run installs when missing) through puppeteer-core. Apart from `npm test`, which needs no browser.
const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: src('../..'),
  resolve: {
    alias: {
      '@catalog-search/core': src('../../packages/core/src/index.ts'),
      '@catalog-search/client': src('../../packages/client/src/index.ts'),
    },
  },
  test: {
    include: ['test/browser/**/*.test.ts'],
    // One Chromium at a time on a small machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
