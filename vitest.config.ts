import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The second reporter names the reason of every skipped suite (PostgreSQL without TEST_DATABASE_URL, …).
    reporters: ['default', './test/support/skip-reasons-reporter.ts'],
  },
});
