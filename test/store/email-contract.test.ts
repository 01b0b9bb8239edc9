import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type {
  AccountTokenRecord,
  EmailMessageRecord,
  EmailRecipientRecord,
  Store,
} from '../../src/store/store.js';
import { emptyBrand } from '../../src/core/brand-context.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';

let sequence = 0;
const unique = (prefix: string) => `${prefix}_email${String(++sequence).padStart(8, '0')}`;
const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute)).toISOString();

function message(
  workspaceId: string | null,
  overrides: Partial<EmailMessageRecord> = {},
): EmailMessageRecord {
  return {
    id: unique('em'),
    workspaceId,
    source: 'api',
    from: 'Ada <ada@example.com>',
    toHeader: ['Bob <bob@example.com>'],
    ccHeader: [],
    replyTo: ['help@example.com'],
    headers: { 'X-Campaign': 'spring' },
    tags: { kind: 'receipt' },
    subject: 'Your receipt ☕',
    body: 'v1.sealed',
    status: 'queued',
    createdAt: at(1),
    updatedAt: at(1),
    ...overrides,
  };
}

function recipient(messageId: string, email: string, field: EmailRecipientRecord['field'] = 'to') {
  return {
    id: unique('er'),
    messageId,
    email,
    field,
    status: 'queued' as const,
    attempts: 0,
    nextAttemptAt: at(1),
    lastResponse: null,
  };
}

describeEachBackend('Email store contract', (backend) => {
  let database: TestDatabase;
  let store: Store;
  let workspaceId: string;
  let otherWorkspaceId: string;

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
    workspaceId = unique('ws');
    otherWorkspaceId = unique('ws');
    for (const id of [workspaceId, otherWorkspaceId]) {
      await store.workspaces.create({ id, name: 'Mail Co', createdAt: at(0) }, emptyBrand());
    }
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  describe('messages', () => {
    it('stores a message with its recipients in order and its events, readable only in its workspace', async () => {
      const stored = message(workspaceId);
      const recipients = [
        recipient(stored.id, 'bob@example.com'),
        recipient(stored.id, 'cat@example.com', 'cc'),
        recipient(stored.id, 'dan@example.com', 'bcc'),
      ];
      await store.email.create(stored, recipients, [
        { id: unique('ee'), messageId: stored.id, recipient: null, type: 'queued', detail: null, at: at(1) },
      ]);
      const read = await store.email.get(workspaceId, stored.id);
      expect(read).toEqual({ ...stored, recipients });
      expect(await store.email.get(otherWorkspaceId, stored.id)).toBeUndefined();
      expect(await store.email.get(null, stored.id)).toBeUndefined();
      expect(await store.email.events(stored.id)).toEqual([
        expect.objectContaining({ recipient: null, type: 'queued', at: at(1) }),
      ]);
    });

    it('keeps account email of no workspace apart from every workspace', async () => {
      const reset = message(null, { source: 'account' });
      await store.email.create(reset, [recipient(reset.id, 'eve@example.com')], []);
      expect(await store.email.get(null, reset.id)).toMatchObject({ id: reset.id, workspaceId: null });
      expect(await store.email.get(workspaceId, reset.id)).toBeUndefined();
    });

    it('lists newest first, filtered by status and source, and continues after a position', async () => {
      const listed = unique('ws');
      await store.workspaces.create({ id: listed, name: 'List Co', createdAt: at(0) }, emptyBrand());
      const messages = [
        message(listed, { createdAt: at(5), status: 'sent' }),
        message(listed, { createdAt: at(6), status: 'bounced' }),
        message(listed, { createdAt: at(6), status: 'sent', source: 'account' }),
      ];
      for (const one of messages) await store.email.create(one, [recipient(one.id, 'x@example.com')], []);
      const all = await store.email.list(listed, { limit: 10 });
      const newestFirst = [...messages].sort((a, b) =>
        a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt),
      );
      expect(all.map((one) => one.id)).toEqual(newestFirst.map((one) => one.id));
      expect(all[0]?.recipients).toHaveLength(1);
      const sent = await store.email.list(listed, { status: 'sent', limit: 10 });
      expect(sent.map((one) => one.status)).toEqual(['sent', 'sent']);
      expect(await store.email.list(listed, { status: 'sent', source: 'api', limit: 10 })).toHaveLength(1);
      const [first] = all;
      if (!first) throw new Error('no messages listed');
      const rest = await store.email.list(listed, {
        after: { createdAt: first.createdAt, id: first.id },
        limit: 10,
      });
      expect(rest.map((one) => one.id)).toEqual(newestFirst.slice(1).map((one) => one.id));
    });

    it('finds captured messages of every workspace and of none, by recipient', async () => {
      const captured = message(null, { status: 'captured', source: 'account' });
      await store.email.create(captured, [recipient(captured.id, 'Zed@Example.com'.toLowerCase())], []);
      const found = await store.email.listCaptured({ to: 'ZED@example.com', limit: 5 });
      expect(found.map((one) => one.id)).toEqual([captured.id]);
      expect(await store.email.listCaptured({ to: 'nobody@example.com', limit: 5 })).toEqual([]);
    });
  });

  describe('idempotency keys', () => {
    it('finds a key used since a time, refuses a second live use, and lets a stale one name a new request', async () => {
      const first = { workspaceId, key: 'order-1', requestHash: 'h1', messageId: 'em_1', createdAt: at(10) };
      await store.email.recordIdempotencyKey(first, at(0));
      expect(await store.email.findIdempotencyKey(workspaceId, 'order-1', at(5))).toEqual(first);
      expect(await store.email.findIdempotencyKey(workspaceId, 'order-1', at(10))).toBeUndefined();
      expect(await store.email.findIdempotencyKey(otherWorkspaceId, 'order-1', at(0))).toBeUndefined();
      await expect(
        store.email.recordIdempotencyKey({ ...first, requestHash: 'h2', createdAt: at(11) }, at(5)),
      ).rejects.toThrow();
      const later = { ...first, requestHash: 'h3', messageId: 'em_2', createdAt: at(40) };
      await store.email.recordIdempotencyKey(later, at(20));
      expect(await store.email.findIdempotencyKey(workspaceId, 'order-1', at(20))).toEqual(later);
    });
  });

  describe('senders and suppressions', () => {
    it('adds a sender once, lists them in order and removes one', async () => {
      const sender = (name: string) => ({ workspaceId, sender: name, createdAt: at(1) });
      expect(await store.email.addSender(sender('news@example.com'))).toBe(true);
      expect(await store.email.addSender(sender('news@example.com'))).toBe(false);
      expect(await store.email.addSender(sender('example.org'))).toBe(true);
      expect((await store.email.listSenders(workspaceId)).map((one) => one.sender)).toEqual([
        'example.org',
        'news@example.com',
      ]);
      expect(await store.email.listSenders(otherWorkspaceId)).toEqual([]);
      expect(await store.email.removeSender(workspaceId, 'example.org')).toBe(true);
      expect(await store.email.removeSender(workspaceId, 'example.org')).toBe(false);
    });

    it('keeps the first suppression of an address, per workspace, until it is removed', async () => {
      const suppression = {
        workspaceId,
        email: 'gone@example.com',
        reason: 'bounced' as const,
        detail: '550 5.1.1 No such user',
        messageId: 'em_first',
        createdAt: at(1),
      };
      await store.email.suppress(suppression);
      await store.email.suppress({
        ...suppression,
        detail: 'later',
        messageId: 'em_later',
        createdAt: at(2),
      });
      expect(await store.email.listSuppressions(workspaceId)).toEqual([suppression]);
      expect(await store.email.suppressed(workspaceId, ['gone@example.com', 'here@example.com'])).toEqual(
        new Set(['gone@example.com']),
      );
      expect(await store.email.suppressed(otherWorkspaceId, ['gone@example.com'])).toEqual(new Set());
      expect(await store.email.removeSuppression(workspaceId, 'gone@example.com')).toBe(true);
      expect(await store.email.removeSuppression(workspaceId, 'gone@example.com')).toBe(false);
    });
  });

  describe('transactional email keys', () => {
    it('stores a key without an expiry', async () => {
      const key = {
        id: unique('ek'),
        workspaceId,
        name: 'mailer',
        keyHash: unique('hash').padEnd(64, '0'),
        prefix: 'tek_abcd',
        last4: 'wxyz',
        createdBy: null,
        createdAt: at(1),
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
      };
      await store.keys.create('email', key);
      expect(await store.keys.findByHashes('email', [key.keyHash])).toEqual([
        {
          id: key.id,
          workspaceId,
          keyHash: key.keyHash,
          prefix: 'tek_abcd',
          expiresAt: null,
          revokedAt: null,
        },
      ]);
      expect(await store.keys.findByHashes('api', [key.keyHash])).toEqual([]);
      expect(await store.keys.list('email', workspaceId)).toContainEqual(key);
    });
  });

  describe('account tokens', () => {
    async function user() {
      const id = unique('usr');
      await store.users.create({ id, email: `${id}@example.com`, passwordHash: null, createdAt: at(0) });
      return id;
    }
    function token(userId: string, overrides: Partial<AccountTokenRecord> = {}): AccountTokenRecord {
      return {
        id: unique('at'),
        tokenHash: unique('hash').padEnd(64, '0'),
        purpose: 'invite',
        userId,
        workspaceId,
        createdAt: at(1),
        expiresAt: at(100),
        usedAt: null,
        replacedAt: null,
        messageId: null,
        ...overrides,
      };
    }

    it('finds a token by its hash and lets exactly one of two uses at once win', async () => {
      const stored = token(await user());
      await store.accountTokens.create(stored);
      expect(await store.accountTokens.findByHash(stored.tokenHash)).toEqual(stored);
      const uses = await Promise.all([
        store.accountTokens.use(stored.id, at(2)),
        store.accountTokens.use(stored.id, at(3)),
      ]);
      expect(uses.filter(Boolean)).toHaveLength(1);
      expect((await store.accountTokens.findByHash(stored.tokenHash))?.usedAt).not.toBeNull();
    });

    it('lists the newest unused invite into a workspace as pending, and expires the unused ones of a purpose', async () => {
      const userId = await user();
      const older = token(userId, { createdAt: at(1) });
      const newer = token(userId, { createdAt: at(2) });
      const reset = token(userId, { purpose: 'password_reset', workspaceId: null });
      for (const one of [older, newer, reset]) await store.accountTokens.create(one);
      const pending = async (workspace: string) =>
        (await store.accountTokens.pendingInvites(workspace))
          .filter((invite) => invite.userId === userId)
          .map((invite) => invite.id);
      expect(await pending(workspaceId)).toEqual([newer.id]);
      expect(await pending(otherWorkspaceId)).toEqual([]);
      await store.accountTokens.expireUnused(userId, 'invite', at(5), 'expired');
      expect((await store.accountTokens.findByHash(newer.tokenHash))?.expiresAt).toBe(at(5));
      expect((await store.accountTokens.findByHash(reset.tokenHash))?.expiresAt).toBe(at(100));
    });

    it('marks a replaced link as replaced, keeping its expiry, and ends it only once', async () => {
      const userId = await user();
      const reset = token(userId, { purpose: 'password_reset', workspaceId: null });
      await store.accountTokens.create(reset);
      await store.accountTokens.expireUnused(userId, 'password_reset', at(5), 'replaced');
      await store.accountTokens.expireUnused(userId, 'password_reset', at(6), 'expired');
      expect(await store.accountTokens.findByHash(reset.tokenHash)).toMatchObject({
        replacedAt: at(5),
        expiresAt: at(100),
      });
    });
  });
});
