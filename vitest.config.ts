import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
    testTimeout: 20_000,
    // New password hashes cost N=2^10 instead of 2^17 under tests (src/services/auth/passwords.ts): the sign-in
    // and account suites hash hundreds of passwords. The service's own cost is tested in passwords.test.ts.
    env: { BRAND_CONTEXT_TEST_SCRYPT_N: '1024' },
    hookTimeout: 30_000,
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. Many suites mostly wait
    // (child processes, sockets, timers, Chromium), so one worker per core keeps the cores busy instead.
    maxWorkers: availableParallelism(),
    // Test files share their worker's modules instead of loading them afresh: importing the service cost
    // 129 s of the suite's 590 s; without isolation 20 s (524 s in all). No test relies on a fresh module.
    isolate: false,
    // The second reporter names the reason of every skipped suite (PostgreSQL without TEST_DATABASE_URL, …).
    reporters: [
      'default',
      './test/support/skip-reasons-reporter.ts',
      './test/support/openapi-conformance-reporter.ts',
    ],
    // Every response a test app gives is checked against its /openapi.json (docs/api-reference.md).
    setupFiles: ['./test/support/openapi-conformance.setup.ts'],
  },
});
