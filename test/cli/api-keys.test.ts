import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CreatedKey, KeyView } from '../../src/contract/keys.js';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend } from '#test/support/databases.js';
import { bearer } from '#test/support/users.js';
import { useCliWorkspace } from './cli-process.js';

const API_KEY = /^wsk_[0-9A-Za-z]{36}$/;

describeEachBackend('brand-context api-keys', (backend) => {
  const workspace = useCliWorkspace(backend, 'Api Co');
  const { cli, cliJson } = workspace;
  let testApp: TestApp;
  const listCampaigns = (key: string) =>
    testApp.app.inject({
      method: 'GET',
      url: `/api/v1/workspaces/${workspace.id}/campaigns`,
      headers: bearer(key),
    });

  beforeAll(async () => {
    testApp = await startTestApp(workspace.database);
    // The CLI stamps revocations with the real time; the app must judge them from a later instant.
    testApp.clock.advance(Date.now() + 60 * 60 * 1000 - testApp.clock.now());
  });

  afterAll(async () => {
    await testApp.close();
  });

  it('creates a wsk_ key that the campaign API accepts, shown once and listed only by prefix', async () => {
    const result = await cli([
      'api-keys',
      'create',
      '--workspace',
      workspace.id,
      '--name',
      'crm sync',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout) as CreatedKey;
    expect(created.key).toMatch(API_KEY);
    expect(created.id).toMatch(/^ak_/);
    expect(result.stderr).toMatch(/^warning: .*shown only once/);
    expect((await listCampaigns(created.key)).statusCode).toBe(200);

    const listing = await cli(['api-keys', 'list', '--workspace', workspace.id, '--json']);
    const keys = JSON.parse(listing.stdout) as KeyView[];
    expect(keys.map((key) => [key.id, key.status, key.prefix])).toEqual([
      [created.id, 'active', created.key.slice(0, 8)],
    ]);
    expect(listing.stdout).not.toContain(created.key);
    // Workspace API keys are not brand read keys: `keys list` knows nothing of them.
    expect(await cliJson<KeyView[]>(['keys', 'list', '--workspace', workspace.id, '--json'])).toEqual([]);
  });

  it('revokes a key so that the campaign API refuses it on the next request', async () => {
    const created = await cliJson<CreatedKey>([
      'api-keys',
      'create',
      '--workspace',
      workspace.id,
      '--name',
      'old sync',
      '--json',
    ]);
    const revoked = await cliJson<KeyView>([
      'api-keys',
      'revoke',
      '--workspace',
      workspace.id,
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
      workspace.id,
      '--name',
      'etl',
      '--json',
    ]);
    const rotated = await cliJson<CreatedKey & { next_steps: string[] }>([
      'api-keys',
      'rotate',
      '--workspace',
      workspace.id,
      old.id,
      '--json',
    ]);
    expect(rotated.key).toMatch(API_KEY);
    expect(rotated.name).toBe('etl (rotated)');
    expect(rotated.next_steps.join('\n')).toContain('/campaigns');
    expect(rotated.next_steps.at(-1)).toBe(
      `Revoke the old key: brand-context api-keys revoke --workspace ${workspace.id} ${old.id}`,
    );
  });

  it('answers an unknown key id with api_key_not_found and exit code 1', async () => {
    const result = await cli(['api-keys', 'revoke', '--workspace', workspace.id, 'ak_nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Workspace ${workspace.id} has no workspace API key ak_nope.`);
  });
});
