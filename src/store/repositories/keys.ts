import { type CompiledQuery, type Kysely, type RawBuilder, type Selectable, sql, type SqlBool } from 'kysely';
import type { KeyKindId } from '../../core/key-kinds.js';
import { prepareByName } from '../prepared.js';
import type { Database } from '../schema.js';
import type { Session } from '../session.js';
import type {
  KeyCredential,
  KeyNoticesRepository,
  KeyRecord,
  KeysRepository,
  Revocation,
  Store,
  UsageStamp,
} from '../store.js';
import { stampLastUse } from './last-used.js';

/** Every key, whatever its kind, is one row of `keys` (src/store/migrations/0012_one_keys_table.ts). */
export interface KeyColumns {
  id: string;
  kind: KeyKindId;
  workspace_id: string;
  name: string;
  key_hash: string;
  /** The key's first characters, which listings show. */
  prefix: string;
  last4: string;
  created_by: string | null;
  created_at: string;
  /** Null: a key of a kind that lives until revoked (src/core/key-kinds.ts `lifetimeDays`). */
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

/**
 * What a lookup by hash selects: what judging a presented key needs, named (a prepared statement,
 * src/store/prepared.ts, must not use `select *`). The listing's columns stay out: on PostgreSQL each
 * timestamp costs a parse per row, and a read that misses the key cache pays for every one.
 */
const CREDENTIAL_COLUMNS = [
  'id',
  'kind',
  'workspace_id',
  'key_hash',
  'prefix',
  'expires_at',
  'revoked_at',
] as const satisfies readonly (keyof KeyColumns)[];

type CredentialRow = Pick<Selectable<KeyColumns>, (typeof CREDENTIAL_COLUMNS)[number]>;

/**
 * `key_hash` among a list bound as one parameter, so that one SQL text, prepared once, serves a list of any
 * length: an array on PostgreSQL, a JSON array that json_each reads on SQLite. Both use key_hash's index.
 */
const HASH_LISTS: Record<
  Store['kind'],
  { where: RawBuilder<SqlBool>; bind: (hashes: readonly string[]) => unknown }
> = {
  postgres: { where: sql<SqlBool>`key_hash = any(${[]}::text[])`, bind: (hashes) => hashes },
  sqlite: {
    where: sql<SqlBool>`key_hash in (select value from json_each(${'[]'}))`,
    bind: (hashes) => JSON.stringify(hashes),
  },
};

/**
 * The lookup by hash of `backend`, its one parameter the list of hashes: a search of the hash's unique index.
 * The kind is checked on the rows it returns, not in the query: beside `kind = ?`, SQLite's planner, which has
 * no statistics, reads every key of the kind through keys_expires_idx instead (test/store/key-query-plans.test.ts).
 */
export function keyLookupByHashes(
  db: Kysely<Database>,
  backend: Store['kind'],
): CompiledQuery<CredentialRow> {
  return db.selectFrom('keys').select(CREDENTIAL_COLUMNS).where(HASH_LISTS[backend].where).compile();
}

function toKey(row: Selectable<KeyColumns>): KeyRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    keyHash: row.key_hash,
    prefix: row.prefix,
    last4: row.last4,
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

function toRow(kind: KeyKindId, key: KeyRecord): KeyColumns {
  return {
    id: key.id,
    kind,
    workspace_id: key.workspaceId,
    name: key.name,
    key_hash: key.keyHash,
    prefix: key.prefix,
    last4: key.last4,
    created_by: key.createdBy,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
    last_used_at: key.lastUsedAt,
  };
}

export class KeysTable implements KeysRepository {
  /** findByHashes's query, built once: a key lookup runs on every read that misses the key cache. */
  private byHashes: CompiledQuery<CredentialRow> | undefined;

  /**
   * @param announcedKinds the kinds whose creation and revocation are announced on the change feed (use
   *   stamps never are): those the read operation caches.
   */
  constructor(
    private readonly session: Session,
    private readonly announcedKinds: readonly KeyKindId[],
  ) {}

  private announced(kind: KeyKindId, workspaceId: string): string | undefined {
    return this.announcedKinds.includes(kind) ? workspaceId : undefined;
  }

  async create(kind: KeyKindId, key: KeyRecord): Promise<void> {
    await this.session.write(this.announced(kind, key.workspaceId), (db) =>
      db.insertInto('keys').values(toRow(kind, key)).execute(),
    );
  }

  async createUnlessExists(kind: KeyKindId, key: KeyRecord): Promise<boolean> {
    // Announced even when another node wrote it first: a change more is harmless, a missed one is not.
    const result = await this.session.write(this.announced(kind, key.workspaceId), (db) =>
      db
        .insertInto('keys')
        .values(toRow(kind, key))
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst(),
    );
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async findByHashes(kind: KeyKindId, keyHashes: readonly string[]): Promise<KeyCredential[]> {
    const backend = this.session.backend.kind;
    if (this.byHashes === undefined) {
      this.byHashes = keyLookupByHashes(this.session.db, backend);
      prepareByName(this.byHashes.sql);
    }
    const { rows } = await this.session.db.executeQuery<CredentialRow>({
      ...this.byHashes,
      parameters: [HASH_LISTS[backend].bind(keyHashes)],
    });
    return rows
      .filter((row) => row.kind === kind)
      .map((row) => ({
        id: row.id,
        workspaceId: row.workspace_id,
        keyHash: row.key_hash,
        prefix: row.prefix,
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at,
      }));
  }

  async list(kind: KeyKindId, workspaceId: string): Promise<KeyRecord[]> {
    const rows = await this.session.db
      .selectFrom('keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('kind', '=', kind)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toKey);
  }

  async revokedHashes(kind: KeyKindId, workspaceId: string, expiringAfter: string): Promise<string[]> {
    const rows = await this.session.db
      .selectFrom('keys')
      .select('key_hash')
      .where('workspace_id', '=', workspaceId)
      .where('kind', '=', kind)
      .where('revoked_at', 'is not', null)
      .where('expires_at', '>', expiringAfter)
      .execute();
    return rows.map((row) => row.key_hash);
  }

  revoke(
    kind: KeyKindId,
    workspaceId: string,
    keyId: string,
    revokedAt: string,
  ): Promise<Revocation<KeyRecord> | undefined> {
    return this.session.write(this.announced(kind, workspaceId), async (db) => {
      const { numUpdatedRows } = await db
        .updateTable('keys')
        .set({ revoked_at: revokedAt })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', keyId)
        .where('kind', '=', kind)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const row = await db
        .selectFrom('keys')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', keyId)
        .where('kind', '=', kind)
        .executeTakeFirst();
      return row && { record: toKey(row), revokedNow: numUpdatedRows > 0n };
    });
  }

  touch(stamps: readonly UsageStamp[]): Promise<void> {
    return stampLastUse(this.session, 'keys', stamps);
  }
}

export interface KeyNoticeColumns {
  key_id: string;
  notice: string;
  sent_at: string;
}

export class KeyNoticesTable implements KeyNoticesRepository {
  constructor(private readonly session: Session) {}

  async due(
    kind: KeyKindId,
    notice: string,
    options: { since: string; until: string; limit: number },
  ): Promise<KeyRecord[]> {
    const rows = await this.session.db
      .selectFrom('keys')
      .selectAll()
      .where('kind', '=', kind)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', options.since)
      .where('expires_at', '<=', options.until)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('key_notices')
              .select('key_id')
              .whereRef('key_notices.key_id', '=', 'keys.id')
              .where('key_notices.notice', '=', notice),
          ),
        ),
      )
      .orderBy('expires_at')
      .limit(options.limit)
      .execute();
    return rows.map(toKey);
  }

  async record(keyId: string, notice: string, sentAt: string): Promise<boolean> {
    const result = await this.session.db
      .insertInto('key_notices')
      .values({ key_id: keyId, notice, sent_at: sentAt })
      .onConflict((oc) => oc.columns(['key_id', 'notice']).doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }
}
