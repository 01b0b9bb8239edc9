import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapturedEmail, EmailSender, EmailSuppression } from '../../src/contract/email.js';
import type { CreatedKey, KeyView } from '../../src/contract/keys.js';
import { listAuditLog } from '../../src/services/audit/audit.js';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend } from '#test/support/databases.js';
import { capturedEmail, suppress } from '#test/support/fixtures/email.js';
import { bearer } from '#test/support/users.js';
import { useCliWorkspace } from './cli-process.js';

const EMAIL_KEY = /^tek_[0-9A-Za-z]{36}$/;

interface ErrorLine {
  error: { code: string; detail: string; resolution: string; errors?: { field: string; message: string }[] };
}

const errorOf = (stderr: string) => (JSON.parse(stderr) as ErrorLine).error;

describeEachBackend('brand-context email commands', (backend) => {
  const workspace = useCliWorkspace(backend, 'Mail Co');
  const { cli, cliJson } = workspace;
  let testApp: TestApp;
  /** The workspace's audit log, newest first, as [action, actor type, target id]. */
  const audited = async () =>
    (await listAuditLog(testApp.deps, workspace.id, { limit: 100 })).events.map((event) => [
      event.action,
      event.actor.type,
      event.target.id,
    ]);

  beforeAll(async () => {
    testApp = await startTestApp(workspace.database);
    // The CLI stamps its writes with the real time; the app must judge them from a later instant.
    testApp.clock.advance(Date.now() + 60 * 60 * 1000 - testApp.clock.now());
  });

  afterAll(async () => {
    await testApp.close();
  });

  describe('email-keys', () => {
    const create = (...flags: string[]) => [
      'email-keys',
      'create',
      '--workspace',
      workspace.id,
      '--name',
      'receipts',
      ...flags,
      '--json',
    ];

    it('creates a tek_ key that /email/v1 accepts, which lives until revoked, shown once, audited as the operator', async () => {
      const result = await cli(create());
      expect(result.code).toBe(0);
      const created = JSON.parse(result.stdout) as CreatedKey;
      expect(Object.keys(created).sort()).toEqual([
        'created_at',
        'expires_at',
        'id',
        'key',
        'name',
        'prefix',
      ]);
      expect(created).toMatchObject({ name: 'receipts', expires_at: null });
      expect(created.id).toMatch(/^ek_/);
      expect(created.key).toMatch(EMAIL_KEY);
      expect(result.stderr).toBe(
        'warning: This key is shown only once: store it in a server-side secret now. It lives until it is revoked.\n',
      );
      const messages = await testApp.app.inject({
        method: 'GET',
        url: '/email/v1/messages?limit=1',
        headers: bearer(created.key),
      });
      expect(messages.statusCode).toBe(200);
      expect((await audited())[0]).toEqual(['email_key.created', 'operator', created.id]);
    });

    it('--expires-in-days makes it expire after that many whole days', async () => {
      const created = await cliJson<CreatedKey>(create('--expires-in-days', '30'));
      expect(Date.parse(String(created.expires_at)) - Date.parse(created.created_at)).toBe(30 * DAY_MS);
      const listing = await cli(['email-keys', 'list', '--workspace', workspace.id]);
      expect(listing.stdout).toMatch(
        new RegExp(`${created.id} +receipts +\\S+ +active +\\S+ +${created.expires_at}`),
      );
      expect(listing.stdout).toMatch(/ +active +\S+ +never +never +operator$/m);
      expect(listing.stdout).not.toContain(created.key);
    });

    it('refuses a lifetime that is not a whole number of days from 1 to 3650, and creates nothing', async () => {
      const before = await cliJson<KeyView[]>(['email-keys', 'list', '--workspace', workspace.id, '--json']);
      for (const days of ['0', '3651', '1.5', 'soon']) {
        const result = await cli(create('--expires-in-days', days));
        expect(result.code, days).toBe(1);
        expect(
          errorOf(result.stderr).errors?.map((issue) => issue.field),
          days,
        ).toEqual(['expires_in_days']);
      }
      expect(await cliJson<KeyView[]>(['email-keys', 'list', '--workspace', workspace.id, '--json'])).toEqual(
        before,
      );
    });

    it('offers --expires-in-days only for keys without a lifetime of their own: brand read keys live 90 days', async () => {
      const result = await cli([
        'keys',
        'create',
        '--workspace',
        workspace.id,
        '--name',
        'x',
        '--expires-in-days',
        '5',
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("unknown option '--expires-in-days'");
    });

    it('rotates a key with an expiry into one that lives as many days, or as many as --expires-in-days says', async () => {
      const old = await cliJson<CreatedKey>(create('--expires-in-days', '10'));
      const rotate = (...flags: string[]) =>
        cliJson<CreatedKey>([
          'email-keys',
          'rotate',
          '--workspace',
          workspace.id,
          old.id,
          ...flags,
          '--json',
        ]);
      const lifeOf = (key: CreatedKey) => Date.parse(String(key.expires_at)) - Date.parse(key.created_at);

      expect(lifeOf(await rotate())).toBe(10 * DAY_MS);
      expect(lifeOf(await rotate('--expires-in-days', '3'))).toBe(3 * DAY_MS);
    });

    it('revokes a key so that /email/v1 refuses it, and rotate names the email API as the place to verify the replacement', async () => {
      const old = await cliJson<CreatedKey>(create());
      const rotated = await cliJson<CreatedKey & { next_steps: string[] }>([
        'email-keys',
        'rotate',
        '--workspace',
        workspace.id,
        old.id,
        '--json',
      ]);
      expect(rotated.key).toMatch(EMAIL_KEY);
      expect(rotated.expires_at).toBeNull();
      expect(rotated.next_steps).toEqual([
        'Update the environment variable that holds the key (e.g. BRAND_CONTEXT_EMAIL_KEY) in every environment that uses it.',
        'Verify the new key with a test request (GET /email/v1/messages?limit=1 returns 200).',
        `Revoke the old key: brand-context email-keys revoke --workspace ${workspace.id} ${old.id}`,
      ]);
      const revoked = await cliJson<KeyView>([
        'email-keys',
        'revoke',
        '--workspace',
        workspace.id,
        old.id,
        '--json',
      ]);
      expect(revoked.status).toBe('revoked');
      const refused = await testApp.app.inject({
        method: 'GET',
        url: '/email/v1/messages',
        headers: bearer(old.key),
      });
      expect(refused.json<{ code: string }>().code).toBe('email_key_revoked');
      expect((await audited())[0]).toEqual(['email_key.revoked', 'operator', old.id]);
    });
  });

  describe('email-senders', () => {
    const senders = (...args: string[]) => ['email-senders', ...args, '--workspace', workspace.id];

    it('adds an address and a domain, lower case, audited as the operator, and lists them alphabetically', async () => {
      const address = await cliJson<EmailSender & { added: boolean }>(
        senders('add', 'News@Mail.example', '--json'),
      );
      expect(address).toMatchObject({ sender: 'news@mail.example', kind: 'address', added: true });
      const domain = await cli(senders('add', 'shop.example'));
      expect(domain.stdout).toBe(
        `Workspace ${workspace.id} may now send from shop.example (every address at the domain).\n`,
      );
      expect((await audited()).slice(0, 2)).toEqual([
        ['email_sender.added', 'operator', 'shop.example'],
        ['email_sender.added', 'operator', 'news@mail.example'],
      ]);
      expect(
        (await cliJson<EmailSender[]>(senders('list', '--json'))).map((sender) => [
          sender.sender,
          sender.kind,
        ]),
      ).toEqual([
        ['news@mail.example', 'address'],
        ['shop.example', 'domain'],
      ]);
      expect((await cli(senders('list'))).stdout).toMatch(
        /^SENDER +KIND +ADDED\nnews@mail\.example +address /,
      );
    });

    it('adding a sender twice is no error: it says so, keeps the first, and audits nothing', async () => {
      const first = await cliJson<EmailSender>(senders('add', 'twice.example', '--json'));
      const auditBefore = await audited();
      const again = await cliJson<EmailSender & { added: boolean }>(
        senders('add', 'TWICE.example', '--json'),
      );
      expect(again).toEqual({ ...first, added: false });
      expect((await cli(senders('add', 'twice.example'))).stdout).toBe(
        `Workspace ${workspace.id} could already send from twice.example (every address at the domain).\n`,
      );
      expect(await audited()).toEqual(auditBefore);
    });

    it('refuses what is neither an address nor a domain, naming the field, and adds nothing', async () => {
      const before = await cliJson<EmailSender[]>(senders('list', '--json'));
      for (const text of ['localhost', 'Ada <ada@mail.example>', 'news@', 'bad-.example', 'a b.example']) {
        const result = await cli(senders('add', text, '--json'));
        expect(result.code, text).toBe(1);
        expect(errorOf(result.stderr).errors, text).toEqual([
          {
            field: 'sender',
            message: 'must be an email address (news@example.com) or a domain (example.com)',
          },
        ]);
      }
      expect(await cliJson<EmailSender[]>(senders('list', '--json'))).toEqual(before);
    });

    it('removes a sender, audited as the operator; removing one the workspace does not have is email_sender_not_found', async () => {
      await cliJson(senders('add', 'gone.example', '--json'));
      const removed = await cli(senders('remove', 'Gone.example'));
      expect(removed.stdout).toBe(`Workspace ${workspace.id} can no longer send from gone.example.\n`);
      expect((await audited())[0]).toEqual(['email_sender.removed', 'operator', 'gone.example']);
      const again = await cli(senders('remove', 'gone.example', '--json'));
      expect(again.code).toBe(1);
      expect(errorOf(again.stderr)).toMatchObject({
        code: 'email_sender_not_found',
        detail: 'gone.example is not an allowed sender of this workspace.',
      });
    });

    it('answers workspace_not_found for a workspace that does not exist', async () => {
      const result = await cli(['email-senders', 'list', '--workspace', 'ws_DoesNotExist', '--json']);
      expect(result.code).toBe(1);
      expect(errorOf(result.stderr).code).toBe('workspace_not_found');
    });
  });

  describe('email-suppressions', () => {
    const suppressions = (...args: string[]) => ['email-suppressions', ...args, '--workspace', workspace.id];

    it('lists the addresses that bounced and removes one, audited as the operator', async () => {
      await suppress(testApp, workspace.id, 'bounced@example.com');
      expect(await cliJson<EmailSuppression[]>(suppressions('list', '--json'))).toEqual([
        expect.objectContaining({ email: 'bounced@example.com', detail: '550 5.1.1 No such user' }),
      ]);
      expect((await cli(suppressions('list'))).stdout).toMatch(
        /^EMAIL +SINCE +RELAY ANSWER\nbounced@example\.com +\S+ +550 5\.1\.1 No such user\n$/,
      );
      const removed = await cli(suppressions('remove', 'Bounced@Example.com'));
      expect(removed.stdout).toBe(`Workspace ${workspace.id} sends to bounced@example.com again.\n`);
      expect((await audited())[0]).toEqual(['email_suppression.removed', 'operator', 'bounced@example.com']);
      expect((await cli(suppressions('list'))).stdout).toBe(
        `Workspace ${workspace.id} has no suppressed addresses.\n`,
      );
    });

    it('answers suppression_not_found, with the command that lists them, for an address that is not suppressed', async () => {
      const result = await cli(suppressions('remove', 'never@example.com'));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('never@example.com is not suppressed in this workspace.');
      expect(result.stderr).toContain('brand-context email-suppressions list');
    });
  });

  describe('mailbox', () => {
    it('shows the captured email of every workspace and of none, newest first, with their headers as sent and their bodies', async () => {
      const invite = await capturedEmail(testApp, workspace.id, {
        source: 'account',
        to: ['invitee@example.com'],
        text: 'Accept: http://localhost:3000/invite#one-time-token',
      });
      testApp.clock.advance(1000);
      const reset = await capturedEmail(testApp, null, {
        source: 'account',
        to: ['Forgetful Fred <forgetful@example.com>'],
        bcc: ['audit@example.com'],
        html: '<a href="http://localhost:3000/reset#token">Reset</a>',
        text: null,
      });

      const all = await cliJson<CapturedEmail[]>(['mailbox', '--json']);
      expect(all.map((message) => [message.id, message.workspace_id])).toEqual([
        [reset, null],
        [invite, workspace.id],
      ]);
      expect(all[1]).toMatchObject({
        subject: 'Welcome to Acme',
        text: 'Accept: http://localhost:3000/invite#one-time-token',
        recipients: [{ email: 'invitee@example.com', field: 'to', status: 'captured' }],
      });

      const human = await cli(['mailbox', '--to', 'Forgetful@Example.com']);
      expect(human.stdout).toBe(
        [
          `── ${reset} · ${all[0]?.created_at ?? ''} · no workspace`,
          'From: Acme Coffee <hello@acme.example>',
          'To: Forgetful Fred <forgetful@example.com>',
          'Bcc: audit@example.com',
          'Subject: Welcome to Acme',
          '',
          '<a href="http://localhost:3000/reset#token">Reset</a>',
          '',
        ].join('\n'),
      );
      expect(
        (await cliJson<CapturedEmail[]>(['mailbox', '--limit', '1', '--json'])).map((m) => m.id),
      ).toEqual([reset]);
      expect((await cli(['mailbox', '--to', 'nobody@example.com'])).stdout).toBe(
        'No captured email to nobody@example.com.\n',
      );
    });

    it('refuses a limit that is not a whole number from 1 to 100', async () => {
      for (const limit of ['0', '101', 'all']) {
        const result = await cli(['mailbox', '--limit', limit, '--json']);
        expect(result.code, limit).toBe(1);
        expect(
          errorOf(result.stderr).errors?.map((issue) => issue.field),
          limit,
        ).toEqual(['limit']);
      }
    });
  });
});
