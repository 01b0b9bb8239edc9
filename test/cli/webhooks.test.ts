import { expect, it } from 'vitest';
import type { CreatedWebhook, Webhook } from '../../src/contract/webhooks.js';
import { describeEachBackend } from '#test/support/databases.js';
import { useCliWorkspace } from './cli-process.js';

/** A Standard Webhooks secret: whsec_ and 32 random bytes in base64. */
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const SECRET_IN_TEXT = /whsec_[A-Za-z0-9+/=]+/g;

function secretsIn(text: string): string[] {
  return text.match(SECRET_IN_TEXT) ?? [];
}

interface ErrorLine {
  error: { code: string; detail: string; resolution: string; errors?: { field: string; message: string }[] };
}

describeEachBackend('brand-context webhooks', (backend) => {
  // The address rules are the production ones unless a test says otherwise, whatever the runner's environment.
  const workspace = useCliWorkspace(backend, 'Hooks Co', { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
  const { cli, cliJson } = workspace;
  let created: CreatedWebhook;
  const listed = () => cliJson<Webhook[]>(['webhooks', 'list', '--workspace', workspace.id, '--json']);
  /** `webhooks create` in the workspace for `url`, with `flags`. */
  const create = (url: string, ...flags: string[]) => [
    'webhooks',
    'create',
    '--workspace',
    workspace.id,
    '--url',
    url,
    ...flags,
  ];

  it('webhooks create prints the endpoint and its whsec_ signing secret once', async () => {
    const result = await cli(
      create(
        'https://hooks.example.com/brand',
        '--events',
        'brand.updated, campaign.created',
        '--description',
        'CMS sync',
      ),
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      /^Created webhook endpoint wh_\w+ for https:\/\/hooks\.example\.com\/brand \(events: brand\.updated, campaign\.created\)\./,
    );
    const printed = secretsIn(result.stdout);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(SECRET);
    expect(result.stdout).toContain(`\n  ${printed[0] ?? ''}\n`);
  });

  it('webhooks create --json gives the endpoint with its secret, subscribed to every event by default', async () => {
    created = await cliJson<CreatedWebhook>(create('https://hooks.example.com/all', '--json'));
    expect(created).toMatchObject({
      workspace_id: workspace.id,
      url: 'https://hooks.example.com/all',
      events: ['*'],
      enabled: true,
      disabled_reason: null,
      description: null,
      failing_since: null,
    });
    expect(created.id).toMatch(/^wh_/);
    expect(created.secret).toMatch(SECRET);
  });

  it.concurrent('webhooks list --json lists the endpoints and never a secret', async ({ expect }) => {
    const result = await cli(['webhooks', 'list', '--workspace', workspace.id, '--json']);
    expect(result.code).toBe(0);
    expect(secretsIn(result.stdout + result.stderr)).toEqual([]);
    const list = JSON.parse(result.stdout) as Webhook[];
    const { secret: _secret, ...view } = created;
    expect(list).toContainEqual(view);
    expect(list).toContainEqual(
      expect.objectContaining({
        url: 'https://hooks.example.com/brand',
        events: ['brand.updated', 'campaign.created'],
        description: 'CMS sync',
      }),
    );
    expect(list).toHaveLength(2);
    for (const webhook of list) expect(webhook).not.toHaveProperty('secret');
  });

  it.concurrent(
    'webhooks list shows a table of id, URL, events and state, never a secret',
    async ({ expect }) => {
      const result = await cli(['webhooks', 'list', '--workspace', workspace.id]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^ID +URL +EVENTS +STATE +CREATED\n/);
      expect(result.stdout).toMatch(
        new RegExp(`${created.id} +https://hooks\\.example\\.com/all +\\* +enabled`),
      );
      expect(result.stdout).toMatch(
        /https:\/\/hooks\.example\.com\/brand +brand\.updated,campaign\.created +enabled/,
      );
      expect(secretsIn(result.stdout)).toEqual([]);
    },
  );

  it('webhooks create refuses a loopback URL naming url, and creates nothing', async () => {
    const before = (await listed()).length;
    const [plain, json] = await Promise.all([
      cli(create('http://127.0.0.1:8080/hook')),
      cli(create('https://127.0.0.1/hook', '--json')),
    ]);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toMatch(/^error: Invalid webhook endpoint: url must start with https:\/\/\.\n/);
    expect(plain.stderr).toContain('\n  url: must start with https://\n');
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stderr) as ErrorLine).error).toMatchObject({
      code: 'invalid_request',
      errors: [
        {
          field: 'url',
          message: 'must reach a public address: 127.0.0.1 is loopback, private or otherwise local',
        },
      ],
    });
    expect(secretsIn(plain.stdout + plain.stderr + json.stdout + json.stderr)).toEqual([]);
    expect(await listed()).toHaveLength(before);
  });

  it('webhooks create accepts a loopback http:// URL when WEBHOOK_ALLOW_PRIVATE_URLS=true', async () => {
    const result = await cli(create('http://127.0.0.1:8080/hook', '--json'), {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    expect(result.code).toBe(0);
    const local = JSON.parse(result.stdout) as CreatedWebhook;
    expect(local.url).toBe('http://127.0.0.1:8080/hook');
    const deleted = await cli(['webhooks', 'delete', '--workspace', workspace.id, local.id]);
    expect(deleted.code).toBe(0);
  });

  it('webhooks create refuses an unknown event type, naming it and the events field', async () => {
    const before = (await listed()).length;
    const result = await cli(
      create('https://hooks.example.com/x', '--events', 'brand.updated,brand.deleted', '--json'),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const { error } = JSON.parse(result.stderr) as ErrorLine;
    expect(error.code).toBe('invalid_request');
    expect(error.errors).toEqual([
      {
        field: 'events',
        message: expect.stringContaining('unknown event types ("brand.deleted")') as string,
      },
    ]);
    expect(error.detail).toContain('brand.updated, brand.draft_updated, campaign.created');
    expect(await listed()).toHaveLength(before);
  });

  it.concurrent(
    'webhooks commands on a workspace that does not exist exit 1 saying it "does not exist"',
    async ({ expect }) => {
      const [create, list, remove] = await Promise.all([
        cli(['webhooks', 'create', '--workspace', 'ws_nope', '--url', 'https://hooks.example.com/x']),
        cli(['webhooks', 'list', '--workspace', 'ws_nope', '--json']),
        cli(['webhooks', 'delete', '--workspace', 'ws_nope', created.id]),
      ]);
      for (const result of [create, list, remove]) {
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
      }
      expect(create.stderr).toMatch(/^error: Workspace ws_nope does not exist\.\n {2}hint: /);
      expect((JSON.parse(list.stderr) as ErrorLine).error).toMatchObject({
        code: 'workspace_not_found',
        detail: 'Workspace ws_nope does not exist.',
      });
      expect(remove.stderr).toMatch(/^error: Workspace ws_nope does not exist\./);
    },
  );

  it.concurrent(
    'webhooks delete of an id the workspace does not have exits 1 and points to webhooks list',
    async ({ expect }) => {
      const result = await cli(['webhooks', 'delete', '--workspace', workspace.id, 'wh_doesnotexist']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `error: Workspace ${workspace.id} has no webhook endpoint wh_doesnotexist.\n` +
          '  hint: List the endpoints to find its id (brand-context webhooks list --workspace <id>).\n',
      );
    },
  );

  it('webhooks delete removes the endpoint; deleting it again says it is not there', async () => {
    const deleted = await cliJson<{ id: string; url: string; deleted: boolean }>([
      'webhooks',
      'delete',
      '--workspace',
      workspace.id,
      created.id,
      '--json',
    ]);
    expect(deleted).toEqual({
      id: created.id,
      workspace_id: workspace.id,
      url: 'https://hooks.example.com/all',
      deleted: true,
    });
    expect((await listed()).map((webhook) => webhook.id)).not.toContain(created.id);

    const again = await cli(['webhooks', 'delete', '--workspace', workspace.id, created.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      new RegExp(`^error: Workspace ${workspace.id} has no webhook endpoint ${created.id}\\.`),
    );
  });

  it('webhooks delete prints the endpoint it deleted', async () => {
    const another = await cliJson<CreatedWebhook>(create('https://hooks.example.com/old', '--json'));
    const result = await cli(['webhooks', 'delete', '--workspace', workspace.id, another.id]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Deleted webhook endpoint ${another.id} (https://hooks.example.com/old).\n`);
  });
});
