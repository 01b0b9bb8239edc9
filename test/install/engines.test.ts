import { readFileSync } from 'node:fs';
import { satisfies } from 'semver';
import { expect, it } from 'vitest';

interface LockFile {
  packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } | string[] }>;
}

/*
 * npm ci warns (EBADENGINE) about every installed package whose `engines.node` excludes the Node.js running it;
 * the README promises Node 20.19 and later. The lock file records each package's engines, so this is the same
 * check without a network install. Optional packages are left out: npm skips one that does not fit this Node.js
 * without a word (rollup lists a native binding for Node 22 that nothing here needs).
 */
it('installs no package that declares it does not support this Node.js (npm ci prints no EBADENGINE)', () => {
  const lock = JSON.parse(
    readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8'),
  ) as LockFile;
  const unsupported = Object.entries(lock.packages).flatMap(([path, entry]) => {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    return range === undefined || entry.optional === true || satisfies(process.version, range)
      ? []
      : [`${path || 'brand-context'}@${entry.version ?? '?'} wants node ${range}`];
  });
  expect(unsupported, `on ${process.version}`).toEqual([]);
});
