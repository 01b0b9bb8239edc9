import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

it('names why suites were skipped at the end of a run without TEST_DATABASE_URL', () => {
  const env = { ...process.env };
  delete env.TEST_DATABASE_URL;
  const run = spawnSync(
    process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run', 'test/http/health.test.ts', '--color=false'],
    { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 },
  );
  expect(run.status).toBe(0);
  expect(run.stdout).toContain(
    'Skipped, and why:\n  - TEST_DATABASE_URL is not set: 1 suite skipped (e.g. "Health endpoints [postgres]")',
  );
}, 60_000);
