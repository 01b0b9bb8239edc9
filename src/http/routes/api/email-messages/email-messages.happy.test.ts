import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../../../../services/audit/audit.js';
import { createWorkspace } from '../../../../services/accounts/workspaces.js';
import { describeEachBackend } from '#test/support/databases.js';
import {
  type CapturedEmail,
  capturedEmail,
  type EmailMessage,
  type EmailMessagePage,
  emailKeyWithSender,
  message,
  messageLogApi,
  queueAccountEmail,
  sendEmail,
  suppress,
} from '#test/support/fixtures/email.js';
import { type Fixture, isoNow, useFixture } from '#test/support/http-fixture.js';
import { addUser, type TestUser } from '#test/support/users.js';

/** A workspace of its own, its owner and an admin, and a key: its log holds one test's messages. */
async function ownWorkspace(
  f: Fixture,
): Promise<{ workspaceId: string; key: string; owner: TestUser; admin: TestUser }> {
  const { id: workspaceId } = await createWorkspace(f.deps, OPERATOR, { name: 'Logged Co' });
  const { key } = await emailKeyWithSender(f, workspaceId);
  return {
    workspaceId,
    key,
    owner: await addUser(f, { workspaceId, role: 'owner' }),
    admin: await addUser(f, { workspaceId, role: 'admin' }),
  };
}

describeEachBackend('Email message log: the happy paths', (backend) => {
  const fixture = useFixture(backend);

  describe('listing', () => {
    it('lists the messages sent through /email/v1 and the account email of the workspace, newest first, to owners and admins', async () => {
      const f = fixture();
      const { workspaceId, key, owner, admin } = await ownWorkspace(f);
      const sent = await sendEmail(f, key, message({ tags: { order: 'A-1' } }));
      f.clock.advance(1000);
      const invite = await queueAccountEmail(f, workspaceId);

      for (const user of [owner, admin]) {
        const response = await messageLogApi(f, user.token, workspaceId).list();
        expect(response.statusCode).toBe(200);
        const page = response.json<EmailMessagePage>();
        expect(page.items.map((item) => item.id)).toEqual([invite, sent.id]);
        expect(page.next_cursor).toBeNull();
        expect(page.items[1]).toMatchObject({
          subject: 'Your receipt',
          tags: { order: 'A-1' },
          status: 'queued',
        });
        expect(response.body).not.toContain('Thank you for your order');
        expect(response.body).not.toContain('one-time-token');
      }
    });

    it('pages with the cursor and filters by status, as /email/v1 does', async () => {
      const f = fixture();
      const { workspaceId, key, owner } = await ownWorkspace(f);
      await suppress(f, workspaceId, 'gone@example.com');
      const ids: string[] = [];
      for (const to of ['a@example.com', 'gone@example.com', 'b@example.com']) {
        f.clock.advance(1000);
        ids.push((await sendEmail(f, key, message({ to }))).id);
      }
      f.clock.advance(1000);
      ids.push(await capturedEmail(f, workspaceId));
      const log = messageLogApi(f, owner.token, workspaceId);

      const first = (await log.list('?limit=2')).json<EmailMessagePage>();
      expect(first.items.map((item) => item.id)).toEqual([ids[3], ids[2]]);
      const second = (
        await log.list(`?limit=2&cursor=${String(first.next_cursor)}`)
      ).json<EmailMessagePage>();
      expect(second).toEqual({
        items: [expect.objectContaining({ id: ids[1] }), expect.objectContaining({ id: ids[0] })],
        next_cursor: null,
      });
      const byStatus = async (status: string) =>
        (await log.list(`?status=${status}`)).json<EmailMessagePage>().items.map((item) => item.id);
      expect(await byStatus('suppressed')).toEqual([ids[1]]);
      expect(await byStatus('captured')).toEqual([ids[3]]);
      expect(await byStatus('queued')).toEqual([ids[2], ids[0]]);
      expect(await byStatus('bounced')).toEqual([]);
    });
  });

  describe('a message', () => {
    it('shows a message with its recipients, headers and events, never its bodies', async () => {
      const f = fixture();
      const { workspaceId, key, owner } = await ownWorkspace(f);
      f.clock.advance(60_000);
      const { id } = await sendEmail(
        f,
        key,
        message({
          to: 'Ada <ada@example.com>',
          bcc: 'audit@example.com',
          reply_to: 'help@acme.example',
          headers: { 'X-Order': 'A-9' },
        }),
      );

      const response = await messageLogApi(f, owner.token, workspaceId).get(id);

      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        id,
        workspace_id: workspaceId,
        from: 'Acme Coffee <hello@acme.example>',
        subject: 'Your receipt',
        status: 'queued',
        recipients: [
          { email: 'ada@example.com', field: 'to', status: 'queued' },
          { email: 'audit@example.com', field: 'bcc', status: 'queued' },
        ],
        tags: {},
        reply_to: ['help@acme.example'],
        headers: { 'X-Order': 'A-9' },
        events: [{ type: 'queued', at: isoNow(f), recipient: null, detail: null }],
        created_at: isoNow(f),
        updated_at: isoNow(f),
      } satisfies EmailMessage);
      expect(response.body).not.toContain('Thank you for your order');
    });
  });

  describe('the development mailbox', () => {
    it('reads a captured message with its To and Cc headers as sent, its html and text bodies, never kept by a cache', async () => {
      const f = fixture();
      const { workspaceId, admin } = await ownWorkspace(f);
      const id = await capturedEmail(f, workspaceId, {
        to: ['Ada Lovelace <ada@example.com>', 'grace@example.com'],
        bcc: ['audit@example.com'],
        html: '<p>Welcome, <b>Ada</b></p>',
        text: 'Welcome, Ada',
      });

      const response = await messageLogApi(f, admin.token, workspaceId).content(id);

      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const captured = response.json<CapturedEmail>();
      expect(captured).toMatchObject({
        id,
        status: 'captured',
        subject: 'Welcome to Acme',
        html: '<p>Welcome, <b>Ada</b></p>',
        text: 'Welcome, Ada',
        to: ['Ada Lovelace <ada@example.com>', 'grace@example.com'],
        cc: [],
        recipients: [
          { email: 'ada@example.com', field: 'to', status: 'captured' },
          { email: 'grace@example.com', field: 'to', status: 'captured' },
          { email: 'audit@example.com', field: 'bcc', status: 'captured' },
        ],
      });
      expect(captured.events.map((event) => event.type).sort()).toEqual([
        'captured',
        'captured',
        'captured',
        'queued',
      ]);
    });

    it('shows null for a body the message did not have', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownWorkspace(f);
      const id = await capturedEmail(f, workspaceId, { html: null, text: 'Plain only' });
      const captured = (await messageLogApi(f, owner.token, workspaceId).content(id)).json<CapturedEmail>();
      expect([captured.html, captured.text]).toEqual([null, 'Plain only']);
    });

    it('reads captured account email too: an invite sent while no SMTP_URL is set is read here', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownWorkspace(f);
      const id = await capturedEmail(f, workspaceId, {
        source: 'account',
        text: 'Accept: https://brand-context.example/invite#one-time-link',
      });
      const response = await messageLogApi(f, owner.token, workspaceId).content(id);
      expect(response.json<CapturedEmail>().text).toContain('#one-time-link');
    });
  });
});
