import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The reliability suite (`npm run test:reliability`): black-box scenarios against the BUILT service
// (dist/src/server.js in a child process on loopback; the npm script builds first). One file at a time:
// the scenarios measure timings and load on a small machine.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/reliability/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
