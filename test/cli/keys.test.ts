import { expect, it } from 'vitest';
import type { KeyView, CreatedKey } from '../../src/contract/keys.js';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend } from '#test/support/databases.js';
import { BRAND_KEY, keysIn, useCliWorkspace } from './cli-process.js';

interface RotatedKey extends CreatedKey {
  replaced_key_id: string;
  next_steps: string[];
}

describeEachBackend('brand-context keys', (backend) => {
  const workspace = useCliWorkspace(backend, 'Keys Co');
  const { cli, cliJson } = workspace;
  let created: CreatedKey;

  it('keys create --json prints the key once, with its id, name, prefix and a 90-day expiry, and warns on stderr', async () => {
    const result = await cli([
      'keys',
      'create',
      '--workspace',
      workspace.id,
      '--name',
      'newsletter pipeline',
      '--json',
    ]);
    expect(result.code).toBe(0);
    created = JSON.parse(result.stdout) as CreatedKey;
    expect(Object.keys(created).sort()).toEqual(['created_at', 'expires_at', 'id', 'key', 'name', 'prefix']);
    expect(created.key).toMatch(BRAND_KEY);
    expect(created.id).toMatch(/^bk_/);
    expect(created.name).toBe('newsletter pipeline');
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(Date.parse(String(created.expires_at)) - Date.parse(created.created_at)).toBe(90 * DAY_MS);
    expect(keysIn(result.stdout)).toEqual([created.key]);
    expect(result.stderr).toMatch(/^warning: .*shown only once/);
    expect(result.stderr).not.toContain(created.key);
  });

  it.concurrent('keys list --json shows the key as active, and never the key itself', async ({ expect }) => {
    const result = await cli(['keys', 'list', '--workspace', workspace.id, '--json']);
    expect(result.code).toBe(0);
    expect(keysIn(result.stdout + result.stderr)).toEqual([]);
    const list = JSON.parse(result.stdout) as KeyView[];
    expect(list).toEqual([
      expect.objectContaining({
        id: created.id,
        name: 'newsletter pipeline',
        prefix: created.prefix,
        last4: created.key.slice(-4),
        status: 'active',
        created_at: created.created_at,
        expires_at: created.expires_at,
        revoked_at: null,
      }),
    ]);
    expect(list[0]).not.toHaveProperty('key');
  });

  it.concurrent('keys list shows prefix…last4 in its table, never the key', async ({ expect }) => {
    const result = await cli(['keys', 'list', '--workspace', workspace.id]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ID +NAME +KEY +STATUS/);
    expect(result.stdout).toContain(`${created.prefix}…${created.key.slice(-4)}`);
    expect(result.stdout).toMatch(new RegExp(`${created.id} +newsletter pipeline +\\S+ +active`));
    expect(keysIn(result.stdout + result.stderr)).toEqual([]);
  });

  it('keys revoke revokes the key, and revoking again succeeds and keeps the first revoked_at', async () => {
    const first = await cliJson<KeyView>([
      'keys',
      'revoke',
      '--workspace',
      workspace.id,
      created.id,
      '--json',
    ]);
    expect(first).toMatchObject({ id: created.id, status: 'revoked' });
    expect(first.revoked_at).not.toBeNull();

    const again = await cli(['keys', 'revoke', '--workspace', workspace.id, created.id]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Revoked: ${created.id} (newsletter pipeline, ${created.prefix}…`);
    expect(again.stdout).toContain('is revoked');

    const [listed] = await cliJson<KeyView[]>(['keys', 'list', '--workspace', workspace.id, '--json']);
    expect(listed).toMatchObject({ id: created.id, status: 'revoked', revoked_at: first.revoked_at });
  });

  it.concurrent(
    'keys revoke of a key id the workspace does not have exits 1 and says so',
    async ({ expect }) => {
      const result = await cli(['keys', 'revoke', '--workspace', workspace.id, 'bk_doesnotexist']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `error: Workspace ${workspace.id} has no brand read key bk_doesnotexist.\n` +
          '  hint: List the workspace keys to find the key id (brand-context keys list --workspace <id>).\n',
      );
    },
  );

  it.concurrent(
    'keys commands on a workspace that does not exist exit 1 saying it "does not exist"',
    async ({ expect }) => {
      const [create, list] = await Promise.all([
        cli(['keys', 'create', '--workspace', 'ws_nope', '--name', 'x']),
        cli(['keys', 'list', '--workspace', 'ws_nope', '--json']),
      ]);
      expect(create.code).toBe(1);
      expect(create.stderr).toMatch(/^error: Workspace ws_nope does not exist\.\n {2}hint: /);
      expect(keysIn(create.stdout)).toEqual([]);
      expect(list.code).toBe(1);
      expect(JSON.parse(list.stderr)).toEqual({
        error: expect.objectContaining({
          code: 'workspace_not_found',
          detail: 'Workspace ws_nope does not exist.',
          resolution: expect.any(String) as string,
        }) as unknown,
      });
    },
  );

  it.concurrent(
    'keys create without --name is a usage error: exit 2, and no key is created',
    async ({ expect }) => {
      const result = await cli(['keys', 'create', '--workspace', workspace.id]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("required option '--name <name>' not specified");
      expect(keysIn(result.stdout)).toEqual([]);
      expect(await cliJson<KeyView[]>(['keys', 'list', '--workspace', workspace.id, '--json'])).toHaveLength(
        1,
      );
    },
  );

  it('keys rotate prints a new key and the remaining steps, including the command that revokes the old key', async () => {
    const old = await cliJson<CreatedKey>([
      'keys',
      'create',
      '--workspace',
      workspace.id,
      '--name',
      'cms',
      '--json',
    ]);
    const result = await cli(['keys', 'rotate', '--workspace', workspace.id, old.id]);
    expect(result.code).toBe(0);
    const printed = keysIn(result.stdout);
    expect(printed).toHaveLength(1);
    const [newKey = ''] = printed;
    expect(newKey).not.toBe(old.key);
    expect(result.stdout.split('\n')[0]).toBe(
      `Step 1 done: created ${String(result.stdout.match(/bk_\w+/)?.[0])} (cms (rotated)) to replace ${old.id} (cms, ${old.prefix}…${old.key.slice(-4)}), which keeps working until step 4 revokes it. The new key:`,
    );
    expect(result.stdout).toContain(`\n  ${newKey}\n`);
    expect(result.stdout).toMatch(/^Step 2: Update the environment variable/m);
    expect(result.stdout).toMatch(/^Step 3: Verify the new key/m);
    expect(result.stdout).toContain(
      `Step 4: Revoke the old key: brand-context keys revoke --workspace ${workspace.id} ${old.id}`,
    );

    // Rotation only creates: the old key works until the operator revokes it.
    const list = await cliJson<KeyView[]>(['keys', 'list', '--workspace', workspace.id, '--json']);
    expect(list.find((key) => key.id === old.id)?.status).toBe('active');
    expect(list.find((key) => key.last4 === newKey.slice(-4) && key.id !== old.id)).toMatchObject({
      name: 'cms (rotated)',
      status: 'active',
    });
  });

  it('keys rotate --json gives the new key, the name asked for and the steps', async () => {
    const old = await cliJson<CreatedKey>([
      'keys',
      'create',
      '--workspace',
      workspace.id,
      '--name',
      'crm',
      '--json',
    ]);
    const rotated = await cliJson<RotatedKey>([
      'keys',
      'rotate',
      '--workspace',
      workspace.id,
      old.id,
      '--name',
      'crm 2026',
      '--json',
    ]);
    expect(rotated).toMatchObject({ replaced_key_id: old.id, name: 'crm 2026' });
    expect(rotated.key).toMatch(BRAND_KEY);
    expect(rotated.next_steps.at(-1)).toBe(
      `Revoke the old key: brand-context keys revoke --workspace ${workspace.id} ${old.id}`,
    );
  });

  it.each([['keys'], ['api-keys']])(
    '%s rotate with an unknown or mistyped key id fails with exit code 1 and creates nothing',
    async (command) => {
      const listed = async () =>
        (await cliJson<KeyView[]>([command, 'list', '--workspace', workspace.id, '--json'])).length;
      const before = await listed();
      const idPrefix = command === 'keys' ? 'bk_' : 'ak_';
      const result = await cli([command, 'rotate', '--workspace', workspace.id, `${idPrefix}typo`]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(`^error: Workspace ${workspace.id} has no .+ ${idPrefix}typo\\.`),
      );
      expect(keysIn(result.stderr)).toEqual([]);
      expect(await listed()).toBe(before);
    },
  );
});
