import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { migrateTo, oldDatabase } from '#test/support/migrations.js';

/** The last migration before the one that records who created each webhook endpoint (0010). */
const BEFORE = '0009_key_signing_secret_out';

describeEachBackend('Migrating webhook endpoints to recorded creators (0010)', (backend) => {
  let database: TestDatabase;
  const at = '2026-11-20T10:00:00.000Z';

  beforeAll(async () => {
    database = await backend.create();
    const db = oldDatabase(database);
    try {
      await migrateTo(db, BEFORE);
      await db
        .insertInto('workspaces')
        .values([
          { id: 'ws_a', name: 'A', created_at: at },
          { id: 'ws_b', name: 'B', created_at: at },
        ])
        .execute();
      await db
        .insertInto('users')
        .values(['usr_alice', 'usr_bob'].map((id) => ({ id, email: `${id}@example.com`, created_at: at })))
        .execute();
      const webhook = (id: string) => ({
        id,
        workspace_id: 'ws_a',
        url: 'https://hooks.example.com/x',
        events: '["*"]',
        secret: 'sealed',
        created_at: at,
        updated_at: at,
      });
      await db
        .insertInto('webhooks')
        .values(['wh_alice', 'wh_operator', 'wh_gone', 'wh_unlogged'].map(webhook))
        .execute();
      const audit = (
        id: string,
        entry: {
          workspace: string;
          actor: 'user' | 'operator';
          actorId: string | null;
          action: string;
          target: string;
        },
      ) => ({
        id,
        workspace_id: entry.workspace,
        actor_type: entry.actor,
        actor_id: entry.actorId,
        actor_email: null,
        action: entry.action,
        target_type: 'webhook',
        target_id: entry.target,
        details: '{}',
        created_at: at,
      });
      await db
        .insertInto('audit_events')
        .values([
          // Another workspace's entry naming the same id, and a later change by someone else, are not the creation.
          audit('ae_1', {
            workspace: 'ws_b',
            actor: 'user',
            actorId: 'usr_bob',
            action: 'webhook.created',
            target: 'wh_alice',
          }),
          audit('ae_2', {
            workspace: 'ws_a',
            actor: 'user',
            actorId: 'usr_alice',
            action: 'webhook.created',
            target: 'wh_alice',
          }),
          audit('ae_3', {
            workspace: 'ws_a',
            actor: 'user',
            actorId: 'usr_bob',
            action: 'webhook.updated',
            target: 'wh_alice',
          }),
          audit('ae_4', {
            workspace: 'ws_a',
            actor: 'operator',
            actorId: null,
            action: 'webhook.created',
            target: 'wh_operator',
          }),
          // An account deleted since: its id cannot be a creator any more.
          audit('ae_5', {
            workspace: 'ws_a',
            actor: 'user',
            actorId: 'usr_deleted',
            action: 'webhook.created',
            target: 'wh_gone',
          }),
        ])
        .execute();
    } finally {
      await db.destroy();
    }
  });

  afterAll(async () => {
    await database.drop();
  });

  it('attributes each endpoint to the user its creation was logged for, and leaves the rest unattributed', async () => {
    const store = await openStore(database.config);
    try {
      const creators = Object.fromEntries(
        (await store.webhooks.list('ws_a')).map((webhook) => [webhook.id, webhook.createdBy]),
      );
      expect(creators).toEqual({
        wh_alice: 'usr_alice',
        wh_operator: null,
        wh_gone: null,
        wh_unlogged: null,
      });
    } finally {
      await store.close();
    }
  });
});
