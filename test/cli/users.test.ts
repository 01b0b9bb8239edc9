import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import { openStore } from '../../src/store/open-store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { killAllChildren, runCli, runCliJson } from './cli-process.js';

describeEachBackend('brand-context users and the API share accounts', (backend) => {
  let database: TestDatabase;
  const cli = (args: string[], input?: string) => runCli(args, { databaseUrl: database.url, input });

  beforeAll(async () => {
    database = await backend.create();
  });
  afterAll(async () => {
    await killAllChildren();
    await database.drop();
  });

  async function signIn(email: string, password: string): Promise<number> {
    const store = await openStore(database.config);
    const app = buildApp({ store, logger: createLogger('silent'), secrets: await SecretBox.load(store) });
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/auth/v1/token',
        payload: { email, password },
      });
      return response.statusCode;
    } finally {
      await app.close();
      await store.close();
    }
  }

  it('creates an owner with the CLI who then signs in over HTTP', async () => {
    const created = await runCliJson<{ id: string; owner_email: string }>(
      ['workspace', 'create', '--name', 'CLI Co', '--owner-email', 'Owner@Example.com', '--json'],
      { databaseUrl: database.url },
    );
    expect(created.owner_email).toBe('owner@example.com');
    expect(await signIn('owner@example.com', 'correct horse battery')).toBe(401);

    const set = await cli(
      ['users', 'set-password', '--email', 'owner@example.com'],
      'correct horse battery\n',
    );
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('Password set for owner@example.com');
    expect(await signIn('owner@example.com', 'correct horse battery')).toBe(200);
  });

  it('workspace create says that users set-password comes next when the owner has no password, in human output only', async () => {
    const created = await cli([
      'workspace',
      'create',
      '--name',
      'Hint Co',
      '--owner-email',
      'hint@example.com',
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created workspace ws_\w+ \(Hint Co\), owned by hint@example\.com\.$/m);
    expect(created.stdout).toContain(
      '\n  printf %s "$PASSWORD" | npx brand-context users set-password --email hint@example.com\n',
    );

    const json = await cli([
      'workspace',
      'create',
      '--name',
      'Json Co',
      '--owner-email',
      'json@example.com',
      '--json',
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({ name: 'Json Co', owner_email: 'json@example.com' });
    expect(json.stdout + json.stderr).not.toContain('set-password');

    // An owner who can already sign in needs no such step.
    expect(
      (await cli(['users', 'set-password', '--email', 'hint@example.com'], 'a long enough password')).code,
    ).toBe(0);
    const again = await cli([
      'workspace',
      'create',
      '--name',
      'Second Co',
      '--owner-email',
      'hint@example.com',
    ]);
    expect(again.stdout).not.toContain('set-password');
  });

  it('creates an account with a password from standard input, never from an argument', async () => {
    const result = await cli(
      ['users', 'create', '--email', 'new@example.com', '--password-stdin', '--json'],
      'another long secret',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ email: 'new@example.com', has_password: true });
    expect(await signIn('new@example.com', 'another long secret')).toBe(200);
  });

  it('refuses a short password and an unknown account with a clear message', async () => {
    const short = await cli(['users', 'set-password', '--email', 'owner@example.com'], 'short');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('password: must be at least 12 characters');
    const unknown = await cli(
      ['users', 'set-password', '--email', 'nobody@example.com'],
      'long enough password',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no account');
    const empty = await cli(['users', 'set-password', '--email', 'owner@example.com'], '');
    expect(empty.code).toBe(2);
  });

  it('makes the same key and workspace records through the CLI as through the API, each audited', async () => {
    const store = await openStore(database.config);
    const app = buildApp({ store, logger: createLogger('silent'), secrets: await SecretBox.load(store) });
    try {
      const session = await app.inject({
        method: 'POST',
        url: '/auth/v1/token',
        payload: { email: 'owner@example.com', password: 'correct horse battery' },
      });
      const headers = { authorization: `Bearer ${session.json<{ access_token: string }>().access_token}` };
      const { workspaces } = (await app.inject({ method: 'GET', url: '/api/v1/workspaces', headers })).json<{
        workspaces: { id: string; name: string }[];
      }>();
      const workspaceId = workspaces.find((w) => w.name === 'CLI Co')?.id ?? '';

      const fromCli = await runCliJson<{ id: string }>(
        ['keys', 'create', '--workspace', workspaceId, '--name', 'from cli', '--json'],
        { databaseUrl: database.url },
      );
      const fromApi = (
        await app.inject({
          method: 'POST',
          url: `/api/v1/workspaces/${workspaceId}/brand-keys`,
          headers,
          payload: { name: 'from api' },
        })
      ).json<{ id: string }>();

      const apiList = (
        await app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspaceId}/brand-keys`, headers })
      ).json<{
        keys: Record<string, unknown>[];
      }>().keys;
      const cliList = await runCliJson<Record<string, unknown>[]>(
        ['keys', 'list', '--workspace', workspaceId, '--json'],
        {
          databaseUrl: database.url,
        },
      );
      expect(cliList).toEqual(apiList);
      expect(apiList.map((key) => key.id).sort()).toEqual([fromCli.id, fromApi.id].sort());

      const audit = (
        await app.inject({ method: 'GET', url: `/api/v1/workspaces/${workspaceId}/audit-log`, headers })
      ).json<{
        events: { action: string; actor: { type: string; email?: string } }[];
      }>().events;
      expect(audit.slice(0, 2).map((event) => [event.action, event.actor.type, event.actor.email])).toEqual([
        ['brand_key.created', 'user', 'owner@example.com'],
        ['brand_key.created', 'operator', undefined],
      ]);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
