import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { type BrandDocument, emptyBrand } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { killAllChildren, runCli } from '../cli/cli-process.js';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { postgresBackend, snapshotTables, type TestDatabase } from '#test/support/databases.js';
import { failBrandWritesWith } from '#test/support/postgres-errors.js';
import { mountSmallDisk, type SmallDisk, smallDiskSkipReason } from '#test/support/small-disk.js';
import { addUser, bearer, type TestUser } from '#test/support/users.js';

const DISK_BYTES = 8 * 1024 * 1024;
/** Room for SQLite's shared-memory index and a few pages, far less than a big brand needs. */
const LEFT_FREE_BYTES = 128 * 1024;

/** A brand of about 800 KB (40 knowledge entries of 20,000 characters): more than the disk has left. */
function bigBrand(name: string): BrandDocument {
  return {
    ...emptyBrand(),
    name,
    knowledge: Array.from({ length: 40 }, (_, i) => ({
      kind: 'fact' as const,
      title: `Entry ${String(i)}`,
      content: `${String(i)} `.repeat(10_000).slice(0, 20_000),
      tags: [],
    })),
  };
}

/** A resource beforeAll set up, or a plain failure if it could not. */
function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} did not start`);
  return value;
}

const skipReason = await smallDiskSkipReason();
const title = 'SQLite on a full disk';

describe.skipIf(skipReason !== undefined)(
  skipReason === undefined ? title : `${title} — skipped: ${skipReason}`,
  () => {
    let mountedDisk: SmallDisk | undefined;
    let database: TestDatabase;
    let testApp: TestApp | undefined;
    let owner: TestUser;
    let workspaceId: string;

    beforeAll(async () => {
      const mounted = await mountSmallDisk(DISK_BYTES);
      if ('skipReason' in mounted) throw new Error(mounted.skipReason);
      mountedDisk = mounted;
      const url = `sqlite:${join(mounted.dir, 'brand-context.db')}`;
      database = { url, config: parseDatabaseUrl(url), drop: () => Promise.resolve() };
      testApp = await startTestApp(database);
      ({ id: workspaceId } = await createWorkspace(testApp.deps, OPERATOR, { name: 'Acme Coffee' }));
      owner = await addUser(testApp, { workspaceId, role: 'owner' });
    });
    afterAll(async () => {
      try {
        await killAllChildren();
        await testApp?.close();
      } finally {
        await mountedDisk?.unmount();
      }
    });

    it('answers a brand write on a full disk with 507 storage_full and a resolution for operators, keeps the brand as it was, and accepts the write once there is room', async () => {
      const disk = present(mountedDisk, 'the small disk');
      const { app } = present(testApp, 'the app');
      const before = await snapshotTables(database.config);
      const put = () =>
        app.inject({
          method: 'PUT',
          url: `/api/v1/workspaces/${workspaceId}/brand`,
          headers: bearer(owner.token),
          payload: bigBrand('Acme Coffee, renamed'),
        });
      await disk.fill(LEFT_FREE_BYTES);
      const refused = await put().finally(() => disk.free());

      expect(refused.statusCode).toBe(507);
      expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(refused.json()).toMatchObject({
        code: 'storage_full',
        status: 507,
        resolution: expect.stringMatching(/disk space/) as string,
      });
      expect(refused.body).not.toMatch(/rollback/i);
      expect(await snapshotTables(database.config)).toEqual(before);

      const accepted = await put();
      expect(accepted.statusCode).toBe(200);
      expect(accepted.json()).toMatchObject({ name: 'Acme Coffee, renamed', version: 2 });
    });

    it('reports `brand import` on a full disk as a one-line error saying the disk is full, exit code 1, and keeps the data as it was', async () => {
      const disk = present(mountedDisk, 'the small disk');
      const before = await snapshotTables(database.config);
      await disk.fill(LEFT_FREE_BYTES);

      const result = await runCli(['brand', 'import', '--workspace', workspaceId, '-'], {
        databaseUrl: database.url,
        input: JSON.stringify(bigBrand('Imported Coffee')),
      }).finally(() => disk.free());

      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^error: database storage full: .+\n$/);
      expect(result.stderr).not.toMatch(/rollback/i);
      expect(await snapshotTables(database.config)).toEqual(before);
    });
  },
);

const postgresTitle = 'PostgreSQL reporting disk_full [postgres]';
const postgresSkip = postgresBackend.skipReason;

describe.skipIf(postgresSkip !== undefined)(
  postgresSkip === undefined ? postgresTitle : `${postgresTitle} — skipped: ${postgresSkip}`,
  () => {
    let database: TestDatabase;
    let testApp: TestApp | undefined;

    beforeAll(async () => {
      database = await postgresBackend.create();
      testApp = await startTestApp(database);
    });
    afterAll(async () => {
      try {
        await testApp?.close();
      } finally {
        await database.drop();
      }
    });

    it('answers a write that PostgreSQL refuses with disk_full (SQLSTATE 53100) with the same 507 storage_full, and changes nothing', async () => {
      const started = present(testApp, 'the app');
      const { id: workspaceId } = await createWorkspace(started.deps, OPERATOR, { name: 'Acme Coffee' });
      const owner = await addUser(started, { workspaceId, role: 'owner' });
      const before = await snapshotTables(database.config);
      const undo = await failBrandWritesWith(database.url, '53100');

      const refused = await started.app
        .inject({
          method: 'PUT',
          url: `/api/v1/workspaces/${workspaceId}/brand`,
          headers: bearer(owner.token),
          payload: bigBrand('Acme Coffee, renamed'),
        })
        .finally(undo);

      expect(refused.statusCode).toBe(507);
      expect(refused.json()).toMatchObject({ code: 'storage_full', status: 507 });
      expect(await snapshotTables(database.config)).toEqual(before);
    });
  },
);
