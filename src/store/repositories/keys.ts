import { type CompiledQuery, type RawBuilder, type Selectable, sql, type SqlBool } from 'kysely';
import type { KeyKindId } from '../../core/key-kinds.js';
import { prepareByName } from '../prepared.js';
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

/** Each kind of key in its own table, all of this shape. */
export interface KeyColumns {
  id: string;
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

/** The table of each key kind: the one place that maps a kind to where its keys live. */
export const KEY_TABLES = {
  brand: 'brand_keys',
  api: 'api_keys',
  email: 'email_keys',
} as const satisfies Record<KeyKindId, string>;

export type KeyTable = (typeof KEY_TABLES)[KeyKindId];

/**
 * What a lookup by hash selects: what judging a presented key needs, named (a prepared statement,
 * src/store/prepared.ts, must not use `select *`). The listing's columns stay out: on PostgreSQL each
 * timestamp costs a parse per row, and a read that misses the key cache pays for every one.
 */
const CREDENTIAL_COLUMNS = [
  'id',
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

function toRow(key: KeyRecord): KeyColumns {
  return {
    id: key.id,
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

export class KeysTables implements KeysRepository {
  /** findByHashes's query per kind, built once: a key lookup runs on every read that misses the key cache. */
  private readonly byHashes = new Map<KeyKindId, CompiledQuery<CredentialRow>>();

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
      db.insertInto(KEY_TABLES[kind]).values(toRow(key)).execute(),
    );
  }

  async createUnlessExists(kind: KeyKindId, key: KeyRecord): Promise<boolean> {
    // Announced even when another node wrote it first: a change more is harmless, a missed one is not.
    const result = await this.session.write(this.announced(kind, key.workspaceId), (db) =>
      db
        .insertInto(KEY_TABLES[kind])
        .values(toRow(key))
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst(),
    );
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async findByHashes(kind: KeyKindId, keyHashes: readonly string[]): Promise<KeyCredential[]> {
    let query = this.byHashes.get(kind);
    if (query === undefined) {
      query = this.session.db
        .selectFrom(KEY_TABLES[kind])
        .select(CREDENTIAL_COLUMNS)
        .where(HASH_LISTS[this.session.backend.kind].where)
        .compile();
      prepareByName(query.sql);
      this.byHashes.set(kind, query);
    }
    const { rows } = await this.session.db.executeQuery<CredentialRow>({
      ...query,
      parameters: [HASH_LISTS[this.session.backend.kind].bind(keyHashes)],
    });
    return rows.map((row) => ({
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
      .selectFrom(KEY_TABLES[kind])
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toKey);
  }

  async revokedHashes(kind: KeyKindId, workspaceId: string, expiringAfter: string): Promise<string[]> {
    const rows = await this.session.db
      .selectFrom(KEY_TABLES[kind])
      .select('key_hash')
      .where('workspace_id', '=', workspaceId)
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
    const table = KEY_TABLES[kind];
    return this.session.write(this.announced(kind, workspaceId), async (db) => {
      const { numUpdatedRows } = await db
        .updateTable(table)
        .set({ revoked_at: revokedAt })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const row = await db
        .selectFrom(table)
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', keyId)
        .executeTakeFirst();
      return row && { record: toKey(row), revokedNow: numUpdatedRows > 0n };
    });
  }

  touch(kind: KeyKindId, stamps: readonly UsageStamp[]): Promise<void> {
    return stampLastUse(this.session, KEY_TABLES[kind], stamps);
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
    const table = KEY_TABLES[kind];
    const rows = await this.session.db
      .selectFrom(table)
      .selectAll()
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', options.since)
      .where('expires_at', '<=', options.until)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('key_notices')
              .select('key_id')
              .whereRef('key_notices.key_id', '=', `${table}.id`)
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
