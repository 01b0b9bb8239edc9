import BetterSqlite3 from 'better-sqlite3';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { emptyBrand } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { killAllChildren, pollUntil, runCli } from '../cli/cli-process.js';
import { DEFAULT_ACCOUNT_LINK_LIMITS } from '../../src/services/accounts/account-email.js';
import { startTestApp } from '#test/support/app.js';
import { postgresBackend, sqliteBackend, type TestDatabase } from '#test/support/databases.js';
import { emailsTo, requestReset } from '#test/support/fixtures/account-email.js';
import { failBrandWritesWith, onBrandWrite } from '#test/support/postgres-errors.js';
import {
  type PrivatePostgres,
  privatePostgresSkipReason,
  startPrivatePostgres,
} from '#test/support/private-postgres.js';
import { addUser, bearer } from '#test/support/users.js';

/** What every request that needs an unavailable database gets. */
function expectUnavailable(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(503);
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  expect(response.json()).toMatchObject({ code: 'service_unavailable', status: 503 });
  // Hosts and ports are for operators (logs), not clients.
  expect(response.body).not.toMatch(/127\.0\.0\.1|ECONN/);
}

/** Fails instead of waiting forever: the behaviour under test is that nothing waits without a timeout. */
function withDeadline<T>(pending: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what}: no answer within ${String(ms)} ms`));
    }, ms);
  });
  return Promise.race([pending, deadline]).finally(() => {
    clearTimeout(timer);
  });
}

/** A running app with a workspace, its owner, a brand read key and a campaign draft. */
async function startWorkspaceApp(database: TestDatabase) {
  const testApp = await startTestApp(database);
  const { deps, app } = testApp;
  const workspace = await createWorkspace(deps, OPERATOR, { name: 'Acme Coffee' });
  const { key } = await createBrandKey(deps, OPERATOR, { workspaceId: workspace.id, name: 'reader' });
  const owner = await addUser(testApp, { workspaceId: workspace.id, role: 'owner' });
  const campaigns = `/api/v1/workspaces/${workspace.id}/campaigns`;
  const created = await app.inject({
    method: 'POST',
    url: campaigns,
    headers: bearer(owner.token),
    payload: { name: 'Winter newsletter' },
  });
  const campaign = `${campaigns}/${created.json<{ id: string }>().id}`;
  return {
    testApp,
    workspaceId: workspace.id,
    read: () =>
      app.inject({
        method: 'POST',
        url: '/functions/v1/brand-agent',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: { action: 'context', workspace_id: workspace.id },
      }),
    getBrand: () =>
      app.inject({
        method: 'GET',
        url: `/api/v1/workspaces/${workspace.id}/brand`,
        headers: bearer(owner.token),
      }),
    putBrand: (name: string) =>
      app.inject({
        method: 'PUT',
        url: `/api/v1/workspaces/${workspace.id}/brand`,
        headers: bearer(owner.token),
        payload: { ...emptyBrand(), name },
      }),
    patch: (text: string) =>
      app.inject({
        method: 'PATCH',
        url: campaign,
        headers: bearer(owner.token),
        payload: { body_text: text },
      }),
    campaignVersion: async () =>
      (await app.inject({ method: 'GET', url: campaign, headers: bearer(owner.token) })).json<{
        version: number;
      }>().version,
    ready: () => app.inject({ method: 'GET', url: '/readyz' }),
    alive: () => app.inject({ method: 'GET', url: '/healthz' }),
  };
}

type WorkspaceApp = Awaited<ReturnType<typeof startWorkspaceApp>>;

/** Waits until reads, writes and /readyz all succeed again, without anyone restarting the app. */
async function expectRecovery(w: WorkspaceApp): Promise<void> {
  const ok = (response: LightMyRequestResponse) => response.statusCode === 200;
  await pollUntil(w.ready, ok, { timeoutMs: 20_000, intervalMs: 100 });
  await pollUntil(w.read, ok, { timeoutMs: 20_000, intervalMs: 100 });
  expect((await w.getBrand()).statusCode).toBe(200);
}

const postgresSkip = await privatePostgresSkipReason();
const postgresTitle = 'A PostgreSQL outage [private PostgreSQL server]';

describe.skipIf(postgresSkip !== undefined)(
  postgresSkip === undefined ? postgresTitle : `${postgresTitle} — skipped: ${postgresSkip}`,
  () => {
    let postgres: PrivatePostgres | undefined;
    let database: TestDatabase | undefined;
    let w: WorkspaceApp | undefined;
    const started = () => {
      if (!w) throw new Error('the app did not start');
      return w;
    };

    const server = () => {
      if (!postgres) throw new Error('the private PostgreSQL server did not start');
      return postgres;
    };

    beforeAll(async () => {
      const started = await startPrivatePostgres();
      if ('skipReason' in started) throw new Error(started.skipReason);
      postgres = started;
      database = {
        url: postgres.url,
        config: parseDatabaseUrl(postgres.url),
        drop: () => Promise.resolve(),
      };
      w = await startWorkspaceApp(database);
    });
    afterAll(async () => {
      try {
        await w?.testApp.close();
      } finally {
        await postgres?.destroy();
      }
    });

    it('answers 503 service_unavailable with Retry-After to every request that needs PostgreSQL while it is down, and recovers by itself once it is back', async () => {
      const w = started();
      expect((await w.read()).statusCode).toBe(200);
      const version = await w.campaignVersion();

      await server().stop();
      // The change feed loses its connection at once: the cached brand is no longer vouched for.
      const { value: read } = await pollUntil(w.read, (response) => response.statusCode !== 200, {
        timeoutMs: 10_000,
      });
      expectUnavailable(read);
      const [brand, patch, ready] = await Promise.all([w.getBrand(), w.patch('while down'), w.ready()]);
      for (const response of [brand, patch, ready]) expectUnavailable(response);
      expect((await w.alive()).statusCode).toBe(200);

      await server().start();
      await expectRecovery(w);
      expect(await w.campaignVersion()).toBe(version);
      expect((await w.patch('after the outage')).json()).toMatchObject({ version: version + 1 });
    }, 60_000);

    it('answers a password reset 503 while PostgreSQL is down, and counts it toward no limit: once it is back the address gets its 3 links an hour', async () => {
      const w = started();
      const { testApp } = w;
      const { email } = (await addUser(testApp, { email: 'outage@reset.example' })).user;
      const { resetPerEmail } = DEFAULT_ACCOUNT_LINK_LIMITS;

      await server().stop();
      try {
        for (let i = 0; i <= resetPerEmail.attempts; i++) {
          expectUnavailable(await requestReset(testApp, { email }));
        }
      } finally {
        await server().start();
      }
      await expectRecovery(w);

      for (let i = 0; i < resetPerEmail.attempts; i++) {
        expect((await requestReset(testApp, { email })).statusCode).toBe(202);
      }
      expect((await requestReset(testApp, { email })).statusCode).toBe(429);
      if (!database) throw new Error('no database');
      expect(await emailsTo({ ...testApp, database }, email)).toHaveLength(resetPerEmail.attempts);
    }, 60_000);

    it('answers 503 with Retry-After within the timeouts while PostgreSQL is frozen, serves no cached read once its heartbeat goes unanswered, and recovers once it thaws', async () => {
      const w = started();
      expect((await w.read()).statusCode).toBe(200);
      const version = await w.campaignVersion();

      await server().freeze();
      try {
        // Generous bounds: a heartbeat (1.5 s), then a statement (6 s) or a connection (5 s) timing out.
        const [read, patch, ready] = await Promise.all([
          pollUntil(w.read, (response) => response.statusCode !== 200, {
            timeoutMs: 20_000,
            intervalMs: 100,
          }),
          withDeadline(w.patch('while frozen'), 20_000, 'PATCH'),
          withDeadline(w.ready(), 20_000, 'GET /readyz'),
        ]);
        for (const response of [read.value, patch, ready]) expectUnavailable(response);
        expect((await w.alive()).statusCode).toBe(200);
      } finally {
        await server().thaw();
      }

      await expectRecovery(w);
      expect(await w.campaignVersion()).toBe(version);
      expect((await w.patch('after the thaw')).json()).toMatchObject({ version: version + 1 });
    }, 90_000);
  },
);

const sharedTitle = 'PostgreSQL refusing work for now [postgres]';
const sharedSkip = postgresBackend.skipReason;

describe.skipIf(sharedSkip !== undefined)(
  sharedSkip === undefined ? sharedTitle : `${sharedTitle} — skipped: ${sharedSkip}`,
  () => {
    let database: TestDatabase;
    let w: WorkspaceApp | undefined;
    const started = () => {
      if (!w) throw new Error('the app did not start');
      return w;
    };

    beforeAll(async () => {
      database = await postgresBackend.create();
      w = await startWorkspaceApp(database);
    });
    afterAll(async () => {
      try {
        await w?.testApp.close();
      } finally {
        await database.drop();
      }
    });

    // Raised on the server by a trigger: the shared server is never actually shut down or exhausted.
    it.each([
      ['53300', 'too many connections'],
      ['57P01', 'an administrator shutting the server down'],
      ['57P03', 'a server still starting up'],
    ])(
      'answers 503 service_unavailable with Retry-After when PostgreSQL reports SQLSTATE %s (%s)',
      async (sqlstate) => {
        const w = started();
        const undo = await failBrandWritesWith(database.url, sqlstate);
        const response = await w.putBrand('Renamed Coffee').finally(undo);
        expectUnavailable(response);
        expect((await w.getBrand()).json()).toMatchObject({ name: 'Acme Coffee', version: 1 });
      },
    );

    it('ends a statement that runs too long on the server (statement_timeout) with 503 service_unavailable, and changes nothing', async () => {
      const w = started();
      const undo = await onBrandWrite(database.url, 'perform pg_sleep(30)');
      const response = await withDeadline(w.putBrand('Renamed Coffee'), 20_000, 'PUT brand').finally(undo);
      expectUnavailable(response);
      expect((await w.getBrand()).json()).toMatchObject({ name: 'Acme Coffee', version: 1 });
    }, 30_000);
  },
);

describe('SQLite held locked by another process', () => {
  let database: TestDatabase;
  let w: WorkspaceApp | undefined;
  const started = () => {
    if (!w) throw new Error('the app did not start');
    return w;
  };

  beforeAll(async () => {
    database = await sqliteBackend.create();
    w = await startWorkspaceApp(database);
  });
  afterAll(async () => {
    await killAllChildren();
    await w?.testApp.close();
    await database.drop();
  });

  it('answers a write 503 service_unavailable with Retry-After once busy_timeout runs out, the CLI says "database unavailable" in one line, and both succeed once the lock is gone', async () => {
    const w = started();
    const brandFile = JSON.stringify({ ...emptyBrand(), name: 'Imported Coffee' });
    const importBrand = () =>
      runCli(['brand', 'import', '--workspace', w.workspaceId, '-'], {
        databaseUrl: database.url,
        input: brandFile,
      });
    const { config } = database;
    if (config.kind !== 'sqlite') throw new Error('an SQLite database was expected');
    const other = new BetterSqlite3(config.path);
    other.exec('begin immediate');
    try {
      const cli = importBrand();
      expectUnavailable(await w.putBrand('Renamed Coffee'));
      const result = await cli;
      expect(result.code).toBe(1);
      // The command cannot even check the schema (that takes the write lock too).
      expect(result.stderr).toMatch(
        /^error: [^\n]*database unavailable: another process kept it locked[^\n]*\n$/,
      );
    } finally {
      other.exec('rollback');
      other.close();
    }

    expect((await w.getBrand()).json()).toMatchObject({ name: 'Acme Coffee', version: 1 });
    expect((await w.putBrand('Renamed Coffee')).statusCode).toBe(200);
    expect((await importBrand()).code).toBe(0);
  }, 60_000);
});
