import { type Kysely, sql } from 'kysely';
import { KEY_KIND_LIST } from '../core/key-kinds.js';
import { AccountTokensTable } from './repositories/account-tokens.js';
import { AuditLog } from './repositories/audit.js';
import { BrandTables } from './repositories/brand.js';
import { CampaignsTable } from './repositories/campaigns.js';
import { DeliveriesTable } from './repositories/deliveries.js';
import { EmailTable } from './repositories/email.js';
import { EmailQueueTable } from './repositories/email-queue.js';
import { KeyNoticesTable, KeysTable } from './repositories/keys.js';
import { OAuthTables } from './repositories/oauth.js';
import { SettingsTable } from './repositories/settings.js';
import { TokensTables } from './repositories/tokens.js';
import { UsersTable } from './repositories/users.js';
import { WebhooksTable } from './repositories/webhooks.js';
import { WorkspacesTables } from './repositories/workspaces.js';
import type { Database } from './schema.js';
import { type Backend, Session } from './session.js';
import type { Repositories, Store, UnitOfWork } from './store.js';

/**
 * The writes announced on the change feed: those that change what the read operation caches (docs/reading-brand-context.md
 * "Reading brand context"): whether a workspace exists, its brand, and the keys of the kinds kept in memory
 * (`cached` in src/core/key-kinds.ts). Other keys, user tokens and the rest are looked up on every request,
 * so their writes evict nothing.
 */
const ANNOUNCED_WRITES = {
  workspaces: ['create'],
  brand: ['replace'],
  keyKinds: KEY_KIND_LIST.filter((kind) => kind.cached).map((kind) => kind.id),
} as const;

/** The repositories, bound to `session`: the pool, or one transaction. */
function repositories(session: Session): Repositories {
  return {
    users: new UsersTable(session),
    workspaces: new WorkspacesTables(session, ANNOUNCED_WRITES.workspaces),
    brand: new BrandTables(session, ANNOUNCED_WRITES.brand),
    keys: new KeysTable(session, ANNOUNCED_WRITES.keyKinds),
    tokens: new TokensTables(session),
    campaigns: new CampaignsTable(session),
    audit: new AuditLog(session),
    settings: new SettingsTable(session),
    webhooks: new WebhooksTable(session),
    deliveries: new DeliveriesTable(session),
    keyNotices: new KeyNoticesTable(session),
    email: new EmailTable(session),
    emailQueue: new EmailQueueTable(session),
    accountTokens: new AccountTokensTable(session),
    oauth: new OAuthTables(session),
  };
}

/** The repositories over `session` and its transaction unit; a transaction begun inside one joins it. */
function unitOfWork(session: Session): UnitOfWork {
  return {
    ...repositories(session),
    transaction: (work) => session.transaction((inner) => work(unitOfWork(inner))),
  };
}

/** The store over Kysely; `backend` supplies what differs between SQLite and PostgreSQL. */
export function kyselyStore(db: Kysely<Database>, backend: Backend): Store {
  return {
    ...unitOfWork(new Session(db, backend)),
    kind: backend.kind,
    changes: backend.hub,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      backend.hub.stop();
      await db.destroy();
    },
  };
}
