import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. Many suites mostly wait
    // (child processes, sockets, timers, Chromium), so one worker per core keeps the cores busy instead.
    maxWorkers: availableParallelism(),
    // The second reporter names the reason of every skipped suite (PostgreSQL without TEST_DATABASE_URL, …).
    reporters: ['default', './test/support/skip-reasons-reporter.ts'],
  },
});
