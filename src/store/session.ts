import type { Kysely } from 'kysely';
import type { ChangeHub } from './change-feed.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';

/** What differs between SQLite and PostgreSQL once Kysely has smoothed over the SQL. */
export interface Backend {
  readonly kind: Store['kind'];
  readonly hub: ChangeHub;
  /** Runs inside a write transaction, so other processes learn of the change only if it commits. */
  announce(db: Kysely<Database>, workspaceId: string): Promise<void>;
}

/**
 * The database as the repositories use it: the connection pool, or one transaction on it. A session bound
 * to a transaction gathers the workspaces its writes announce, and announces each once: to other
 * processes just before the transaction commits, to this process once it has.
 */
export class Session {
  /**
   * @param announced set while the session is bound to a transaction: the workspaces its writes changed.
   */
  constructor(
    readonly db: Kysely<Database>,
    readonly backend: Backend,
    private readonly announced?: Set<string>,
  ) {}

  /** Runs `work` in one transaction: this session's if it is bound to one, a new one otherwise. */
  async transaction<T>(work: (session: Session) => Promise<T>): Promise<T> {
    if (this.announced) return work(this);
    const announced = new Set<string>();
    const result = await this.db.transaction().execute(async (trx) => {
      const value = await work(new Session(trx, this.backend, announced));
      for (const workspaceId of announced) await this.backend.announce(trx, workspaceId);
      return value;
    });
    for (const workspaceId of announced) this.backend.hub.emit({ workspaceId });
    return result;
  }

  /**
   * Several statements that land together, in their own transaction or the caller's.
   * @param announce the workspace to announce as changed, when the repository declares this write announced.
   */
  write<T>(announce: string | undefined, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.transaction(async (session) => {
      const result = await work(session.db);
      if (announce !== undefined) session.announced?.add(announce);
      return result;
    });
  }
}
