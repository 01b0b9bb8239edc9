import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CreatedKey, KeyView } from '../../src/contract/keys.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeEachBackend, type TestDatabase } from '../support/databases.js';
import { bearer } from '../support/users.js';
import { killAllChildren, runCli, runCliJson } from './cli-process.js';

const API_KEY = /^wsk_[0-9A-Za-z]{36}$/;

describeEachBackend('brand-context api-keys', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let workspaceId: string;
  const cliJson = <T>(args: string[]) => runCliJson<T>(args, { databaseUrl: database.url });
  const listCampaigns = (key: string) =>
    testApp.app.inject({
      method: 'GET',
      url: `/api/v1/workspaces/${workspaceId}/campaigns`,
      headers: bearer(key),
    });

  beforeAll(async () => {
    database = await backend.create();
    ({ id: workspaceId } = await cliJson<{ id: string }>([
      'workspace',
      'create',
      '--name',
      'Api Co',
      '--json',
    ]));
    testApp = await startTestApp(database);
    // The CLI stamps revocations with the real time; the app must judge them from a later instant.
    testApp.clock.advance(Date.now() + 60 * 60 * 1000 - testApp.clock.now());
  });

  afterAll(async () => {
    await killAllChildren();
    await testApp.close();
    await database.drop();
  });

  it('creates a wsk_ key that the campaign API accepts, shown once and listed only by prefix', async () => {
    const result = await runCli(
      ['api-keys', 'create', '--workspace', workspaceId, '--name', 'crm sync', '--json'],
      { databaseUrl: database.url },
    );
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout) as CreatedKey;
    expect(created.key).toMatch(API_KEY);
    expect(created.id).toMatch(/^ak_/);
    expect(result.stderr).toMatch(/^warning: .*shown only once/);
    expect((await listCampaigns(created.key)).statusCode).toBe(200);

    const listing = await runCli(['api-keys', 'list', '--workspace', workspaceId, '--json'], {
      databaseUrl: database.url,
    });
    const keys = JSON.parse(listing.stdout) as KeyView[];
    expect(keys.map((key) => [key.id, key.status, key.prefix])).toEqual([
      [created.id, 'active', created.key.slice(0, 8)],
    ]);
    expect(listing.stdout).not.toContain(created.key);
    // Workspace API keys are not brand read keys: `keys list` knows nothing of them.
    expect(await cliJson<KeyView[]>(['keys', 'list', '--workspace', workspaceId, '--json'])).toEqual([]);
  });

  it('revokes a key so that the campaign API refuses it on the next request', async () => {
    const created = await cliJson<CreatedKey>([
      'api-keys',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'old sync',
      '--json',
    ]);
    const revoked = await cliJson<KeyView>([
      'api-keys',
      'revoke',
      '--workspace',
      workspaceId,
      created.id,
      '--json',
    ]);
    expect(revoked.status).toBe('revoked');
    const response = await listCampaigns(created.key);
    expect(response.statusCode).toBe(401);
    expect(response.json<{ code: string }>().code).toBe('api_key_revoked');
  });

  it('rotate creates the replacement and names the campaign API as the place to verify it', async () => {
    const old = await cliJson<CreatedKey>([
      'api-keys',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'etl',
      '--json',
    ]);
    const rotated = await cliJson<CreatedKey & { next_steps: string[] }>([
      'api-keys',
      'rotate',
      '--workspace',
      workspaceId,
      old.id,
      '--json',
    ]);
    expect(rotated.key).toMatch(API_KEY);
    expect(rotated.name).toBe('etl (rotated)');
    expect(rotated.next_steps.join('\n')).toContain('/campaigns');
    expect(rotated.next_steps.at(-1)).toBe(
      `Revoke the old key: brand-context api-keys revoke --workspace ${workspaceId} ${old.id}`,
    );
  });

  it('answers an unknown key id with api_key_not_found and exit code 1', async () => {
    const result = await runCli(['api-keys', 'revoke', '--workspace', workspaceId, 'ak_nope'], {
      databaseUrl: database.url,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Workspace ${workspaceId} has no workspace API key ak_nope.`);
  });
});
