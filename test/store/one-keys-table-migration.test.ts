import { afterAll, beforeAll, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { KEY_KINDS, type KeyKindId } from '../../src/core/key-kinds.js';
import { keySigners } from '../../src/core/key-signature.js';
import { hashKey, KEY_FORMATS } from '../../src/core/secret-keys.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { KEY_SERVICES } from '../../src/services/keys/keys.js';
import type { KeyRecord } from '../../src/store/store.js';
import { startTestApp, TEST_KEY_SIGNING_SECRET, type TestApp } from '#test/support/app.js';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend, snapshotTables, type TestDatabase } from '#test/support/databases.js';
import { migrateTo, oldDatabase } from '#test/support/migrations.js';

/** The last migration before the key kinds' three tables became one (0012). */
const BEFORE = '0011_fair_delivery';
/** The tables 0012 replaces, one per kind that existed then (a kind added later has no old table). */
const OLD_TABLES = { brand: 'brand_keys', api: 'api_keys', email: 'email_keys' } as const;
type OldKindId = keyof typeof OLD_TABLES;

/** The test app's clock starts here (test/support/clock.ts). */
const NOW = Date.UTC(2026, 10, 20, 10, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const WORKSPACE = 'ws_keys0012';
const OTHER_WORKSPACE = 'ws_other0012';

/** A key as the release before 0012 stored it, with the secret its holder presents. */
interface OldKey {
  kind: OldKindId;
  token: string;
  record: KeyRecord;
}

function oldKey(
  kind: OldKindId,
  name: string,
  made: { key: string; id: string },
  fields: Partial<KeyRecord>,
): OldKey {
  return {
    kind,
    token: made.key,
    record: {
      id: made.id,
      workspaceId: WORKSPACE,
      name,
      keyHash: hashKey(made.key),
      ...KEY_FORMATS[kind].hint(made.key),
      createdBy: null,
      createdAt: iso(NOW - 10 * DAY_MS),
      expiresAt: iso(NOW + 30 * DAY_MS),
      revokedAt: null,
      lastUsedAt: null,
      ...fields,
    },
  };
}

const unsigned = (kind: KeyKindId, id: string) => ({ key: KEY_FORMATS[kind].generate(), id });
const signer = keySigners(TEST_KEY_SIGNING_SECRET).brand;
if (signer === undefined) throw new Error('brand read keys are signed');
const signed = () => signer.issue(WORKSPACE, NOW + 30 * DAY_MS);

/** Every kind, live and revoked, signed and not, with creators, uses and an email key that never expires. */
const KEYS = {
  brandUnsigned: oldKey('brand', 'unsigned', unsigned('brand', 'bk_unsigned0012'), {
    createdBy: 'usr_alice',
    lastUsedAt: iso(NOW - DAY_MS),
  }),
  brandSigned: oldKey('brand', 'signed', signed(), { createdAt: iso(NOW - 9 * DAY_MS) }),
  brandRevoked: oldKey('brand', 'revoked', signed(), {
    createdAt: iso(NOW - 8 * DAY_MS),
    revokedAt: iso(NOW - 2 * DAY_MS),
  }),
  api: oldKey('api', 'campaigns', unsigned('api', 'ak_live0012'), {
    createdBy: 'usr_bob',
    lastUsedAt: iso(NOW - 3 * DAY_MS),
  }),
  apiRevoked: oldKey('api', 'old campaigns', unsigned('api', 'ak_revoked0012'), {
    createdAt: iso(NOW - 20 * DAY_MS),
    revokedAt: iso(NOW - 5 * DAY_MS),
  }),
  // email_keys.created_by had no foreign key: a creator whose account is gone is cleared by the migration.
  email: oldKey('email', 'sender', unsigned('email', 'ek_live0012'), {
    createdBy: 'usr_gone',
    expiresAt: null,
  }),
} satisfies Record<string, OldKey>;
const ELSEWHERE = oldKey('api', 'elsewhere', unsigned('api', 'ak_elsewhere0012'), {
  workspaceId: OTHER_WORKSPACE,
});
const ALL: OldKey[] = [...Object.values(KEYS), ELSEWHERE];

/** The row of `key` in its kind's old table. */
function oldRow({ record }: OldKey) {
  return {
    id: record.id,
    workspace_id: record.workspaceId,
    name: record.name,
    key_hash: record.keyHash,
    prefix: record.prefix,
    last4: record.last4,
    created_by: record.createdBy,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
    last_used_at: record.lastUsedAt,
  };
}

describeEachBackend('Migrating the three key tables to one (0012)', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;

  beforeAll(async () => {
    database = await backend.create();
    const db = oldDatabase(database);
    try {
      await migrateTo(db, BEFORE);
      await db
        .insertInto('workspaces')
        .values(
          [WORKSPACE, OTHER_WORKSPACE].map((id) => ({ id, name: id, created_at: iso(NOW - 30 * DAY_MS) })),
        )
        .execute();
      await db
        .insertInto('users')
        .values(
          ['usr_alice', 'usr_bob'].map((id) => ({ id, email: `${id}@example.com`, created_at: iso(NOW) })),
        )
        .execute();
      for (const key of ALL) await db.insertInto(OLD_TABLES[key.kind]).values(oldRow(key)).execute();
    } finally {
      await db.destroy();
    }
    // The app migrates to the latest on opening its store.
    testApp = await startTestApp(database);
  });

  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  // Async, so that a refusal thrown before any await (a revoked key in the cache) rejects the same way.
  const resolve = async (token: string, kind: KeyKindId, claim?: string) => {
    const [surface = 'read'] = KEY_KINDS[kind].surfaces;
    return testApp.app.services.credentials.resolve(
      { authorization: `Bearer ${token}` },
      surface,
      claim === undefined ? undefined : () => Promise.resolve(claim),
    );
  };
  /** The principal's key id, or the code of the refusal. */
  const outcome = (token: string, kind: KeyKindId, claim?: string) =>
    resolve(token, kind, claim).then(
      (principal) => (principal.kind === 'key' ? principal.id : principal.kind),
      (error: unknown) => (error instanceof AppError ? error.code : error),
    );

  it('keeps every key as it was, each listed with its own kind and workspace, newest first, and leaves one table', async () => {
    const expected = (kind: KeyKindId, workspaceId = WORKSPACE) =>
      ALL.filter((key) => key.kind === kind && key.record.workspaceId === workspaceId)
        .map(({ record }) => (record.createdBy === 'usr_gone' ? { ...record, createdBy: null } : record))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    for (const kind of ['brand', 'api', 'email'] as const)
      expect(await testApp.store.keys.list(kind, WORKSPACE)).toEqual(expected(kind));
    expect(await testApp.store.keys.list('api', OTHER_WORKSPACE)).toEqual(expected('api', OTHER_WORKSPACE));

    const tables = Object.keys(await snapshotTables(database.config));
    expect(tables).toContain('keys');
    for (const old of Object.values(OLD_TABLES)) expect(tables).not.toContain(old);
  });

  it('accepts every live key where its kind is taken, and refuses the ones revoked before', async () => {
    expect(await outcome(KEYS.brandUnsigned.token, 'brand')).toBe(KEYS.brandUnsigned.record.id);
    // Verified by its signature for the workspace the read names, checked against its revoked keys.
    expect(await outcome(KEYS.brandSigned.token, 'brand', WORKSPACE)).toBe(KEYS.brandSigned.record.id);
    expect(await outcome(KEYS.brandRevoked.token, 'brand', WORKSPACE)).toBe('key_revoked');
    expect(await outcome(KEYS.brandRevoked.token, 'brand')).toBe('key_revoked');
    expect(await outcome(KEYS.api.token, 'api')).toBe(KEYS.api.record.id);
    expect(await outcome(KEYS.apiRevoked.token, 'api')).toBe('api_key_revoked');
    expect(await outcome(KEYS.email.token, 'email')).toBe(KEYS.email.record.id);
  });

  it('revokes a migrated key of each kind, which every later request then finds refused', async () => {
    for (const key of [KEYS.brandSigned, KEYS.api, KEYS.email]) {
      const revoked = await KEY_SERVICES[key.kind].revoke(testApp.deps, OPERATOR, WORKSPACE, key.record.id);
      expect(revoked).toMatchObject({ id: key.record.id, status: 'revoked' });
      expect(await outcome(key.token, key.kind, WORKSPACE)).toBe(KEY_KINDS[key.kind].problems.revoked);
    }
    // A key of one kind is not found as another's.
    await expect(
      KEY_SERVICES.api.revoke(testApp.deps, OPERATOR, WORKSPACE, KEYS.brandUnsigned.record.id),
    ).rejects.toMatchObject({ code: 'api_key_not_found' });
  });

  it('keeps a hash unique across kinds, and clears the creator of a key whose account is deleted', async () => {
    const { record } = KEYS.brandUnsigned;
    await expect(testApp.store.keys.create('api', { ...record, id: 'ak_samehash0012' })).rejects.toThrow();
    expect(await testApp.store.keys.findByHashes('api', [record.keyHash])).toEqual([]);

    const db = oldDatabase(database);
    try {
      await db.deleteFrom('users').where('id', '=', 'usr_alice').execute();
    } finally {
      await db.destroy();
    }
    const listed = await testApp.store.keys.list('brand', WORKSPACE);
    expect(listed.find((key) => key.id === record.id)?.createdBy).toBeNull();
  });
});
