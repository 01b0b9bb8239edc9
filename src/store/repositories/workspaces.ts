import type { Generated, Selectable } from 'kysely';
import type { BrandReview } from '../../core/brand-versions.js';
import type { Session } from '../session.js';
import type {
  BrandChange,
  BrandContent,
  MembershipRecord,
  Role,
  WorkspaceMembership,
  WorkspaceRecord,
  WorkspacesRepository,
} from '../store.js';
import { FIRST_VERSION_CHANGE, insertFirstBrand } from './brand.js';

export interface WorkspaceColumns {
  id: string;
  /** Also the brand's name. */
  name: string;
  created_at: string;
  /** `off` unless set (docs/brand-versions.md "Review"). */
  brand_review: Generated<BrandReview>;
}

export interface MembershipColumns {
  workspace_id: string;
  user_id: string;
  role: Role;
  created_at: string;
}

function toWorkspace(row: Selectable<WorkspaceColumns>): WorkspaceRecord {
  return { id: row.id, name: row.name, createdAt: row.created_at, brandReview: row.brand_review };
}

function toMembership(row: Selectable<MembershipColumns>): MembershipRecord {
  return {
    workspaceId: row.workspace_id,
    userId: row.user_id,
    role: row.role,
    createdAt: row.created_at,
  };
}

export type WorkspaceWrite = 'create';

export class WorkspacesTables implements WorkspacesRepository {
  /** @param announcedWrites the writes announced on the change feed. */
  constructor(
    private readonly session: Session,
    private readonly announcedWrites: readonly WorkspaceWrite[],
  ) {}

  async create(
    workspace: WorkspaceRecord,
    brand: Omit<BrandContent, 'name'>,
    change: BrandChange = FIRST_VERSION_CHANGE,
  ): Promise<void> {
    const announce = this.announcedWrites.includes('create') ? workspace.id : undefined;
    await this.session.write(announce, async (db) => {
      await db
        .insertInto('workspaces')
        .values({
          id: workspace.id,
          name: workspace.name,
          created_at: workspace.createdAt,
          brand_review: workspace.brandReview ?? 'off',
        })
        .execute();
      await insertFirstBrand(db, workspace.id, brand, workspace.createdAt, change);
    });
  }

  /** Not announced: readers see the published brand whatever the setting (docs/brand-versions.md "Review"). */
  async setBrandReview(id: string, review: BrandReview): Promise<boolean> {
    const result = await this.session.db
      .updateTable('workspaces')
      .set({ brand_review: review })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async get(id: string): Promise<WorkspaceRecord | undefined> {
    const row = await this.session.db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toWorkspace(row);
  }

  async list(): Promise<WorkspaceRecord[]> {
    const rows = await this.session.db
      .selectFrom('workspaces')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toWorkspace);
  }

  async listOf(userId: string): Promise<WorkspaceMembership[]> {
    const rows = await this.session.db
      .selectFrom('memberships')
      .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
      .selectAll('workspaces')
      .select('memberships.role')
      .where('memberships.user_id', '=', userId)
      .orderBy('workspaces.created_at')
      .orderBy('workspaces.id')
      .execute();
    return rows.map((row) => ({ ...toWorkspace(row), role: row.role }));
  }

  async addMember(membership: MembershipRecord): Promise<void> {
    await this.session.db
      .insertInto('memberships')
      .values({
        workspace_id: membership.workspaceId,
        user_id: membership.userId,
        role: membership.role,
        created_at: membership.createdAt,
      })
      .execute();
  }

  async getMember(workspaceId: string, userId: string): Promise<MembershipRecord | undefined> {
    const row = await this.session.db
      .selectFrom('memberships')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row && toMembership(row);
  }

  async listMembers(
    workspaceId: string,
    options: { lock?: boolean } = {},
  ): Promise<(MembershipRecord & { email: string })[]> {
    const rows = await this.session.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .selectAll('memberships')
      .select('users.email')
      .where('memberships.workspace_id', '=', workspaceId)
      .orderBy('memberships.created_at')
      .orderBy('memberships.user_id')
      // SQLite runs one write transaction at a time already; PostgreSQL needs the rows locked.
      .$if(options.lock === true && this.session.backend.kind === 'postgres', (query) =>
        query.forUpdate('memberships'),
      )
      .execute();
    return rows.map((row) => ({ ...toMembership(row), email: row.email }));
  }

  async removeMember(workspaceId: string, userId: string): Promise<boolean> {
    const result = await this.session.db
      .deleteFrom('memberships')
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
