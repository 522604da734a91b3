import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The container suite (`npm run test:container`): builds the image from the real Dockerfile and runs it.
// It needs a Docker engine and the base-image stand-in: scripts/setup-docker.sh prepares both.
// Testcontainers' clean-up helper (Ryuk) is an image that cannot be pulled here: the tests stop their own containers.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/container/**/*.test.ts'],
    globalSetup: ['test/container/global-setup.ts'],
    // One Docker engine on a small machine: one file at a time.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
