import { afterAll, beforeAll } from 'vitest';
import { type ConformanceTally, takeTally } from './openapi-conformance.js';

declare module 'vitest' {
  interface TaskMeta {
    /** How many responses of the file were checked against /openapi.json (test/support/openapi-conformance.ts). */
    openapi?: Omit<ConformanceTally, 'failures'>;
  }
}

/** Shown at most, of a file's failures: the rest are usually the same mismatch again. */
const SHOWN = 40;

// A setup file runs before each test file, in that file's worker (isolate: false keeps modules, not hooks).
beforeAll(() => {
  takeTally();
});

// Vitest wants a pattern for the hook's first parameter (its fixtures); the second is the file's task.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, file) => {
  const { validated, outside, failures } = takeTally();
  file.meta.openapi = { validated, outside };
  if (failures.length === 0) return;
  const counts = new Map<string, number>();
  for (const failure of failures) counts.set(failure, (counts.get(failure) ?? 0) + 1);
  const lines = [...counts]
    .slice(0, SHOWN)
    .map(([failure, count]) => `  - ${failure}${count > 1 ? ` (×${String(count)})` : ''}`);
  throw new Error(
    `${String(failures.length)} of ${String(validated)} responses are not as /openapi.json describes them:\n${lines.join('\n')}`,
  );
});
