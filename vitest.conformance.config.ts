import { defineConfig } from 'vitest/config';

// The conformance suite: one real Slurm for all scenarios, so one file and
// its tests in order.
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['test/helpers/global-setup.ts', 'test/conformance/global-setup.ts'],
    setupFiles: ['test/helpers/cleanup-temp-dirs.ts'],
  },
});
