import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Needs a real Slurm: `npm run test:conformance` (vitest.conformance.config.ts).
    exclude: ['test/conformance/**', 'node_modules/**'],
    // Native code that forks, installs signal handlers or may crash must not
    // share a process with other test files.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/helpers/global-setup.ts'],
    // A test file's temporary directories go once it has run.
    setupFiles: ['test/helpers/cleanup-temp-dirs.ts'],
  },
});
