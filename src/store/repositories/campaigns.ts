import type { Selectable } from 'kysely';
import type { CampaignContent } from '../../contract/campaigns.js';
import type { Session } from '../session.js';
import type {
  ListPosition,
  CampaignRecord,
  CampaignsRepository,
  CampaignStatus,
  CampaignUpdate,
} from '../store.js';
import { listedAfter } from './list-position.js';

/** The content columns are the contract's content fields, by the same names. */
export interface CampaignColumns extends CampaignContent {
  id: string;
  workspace_id: string;
  status: CampaignStatus;
  version: number;
  /** The published brand version the draft was written against (0014); null before. */
  brand_version: number | null;
  created_at: string;
  updated_at: string;
}

/** Only the columns whose names differ from the record's are named: the content comes along as it is. */
function toCampaign(row: Selectable<CampaignColumns>): CampaignRecord {
  const {
    workspace_id: workspaceId,
    brand_version: brandVersion,
    created_at: createdAt,
    updated_at: updatedAt,
    ...sameNamed
  } = row;
  return { ...sameNamed, workspaceId, brandVersion, createdAt, updatedAt };
}

export class CampaignsTable implements CampaignsRepository {
  constructor(private readonly session: Session) {}

  async create(campaign: CampaignRecord): Promise<void> {
    const { workspaceId, brandVersion, createdAt, updatedAt, ...sameNamed } = campaign;
    await this.session.db
      .insertInto('campaigns')
      .values({
        ...sameNamed,
        workspace_id: workspaceId,
        brand_version: brandVersion ?? null,
        created_at: createdAt,
        updated_at: updatedAt,
      })
      .execute();
  }

  async get(workspaceId: string, id: string): Promise<CampaignRecord | undefined> {
    const row = await this.session.db
      .selectFrom('campaigns')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toCampaign(row);
  }

  async list(
    workspaceId: string,
    options: { status?: CampaignStatus | undefined; after?: ListPosition | undefined; limit: number },
  ): Promise<CampaignRecord[]> {
    const { status, after, limit } = options;
    let query = this.session.db.selectFrom('campaigns').selectAll().where('workspace_id', '=', workspaceId);
    if (status !== undefined) query = query.where('status', '=', status);
    if (after !== undefined) query = query.where((eb) => listedAfter(eb, 'created_at', 'id', after));
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toCampaign);
  }

  async update(
    workspaceId: string,
    id: string,
    fromStatus: CampaignStatus,
    update: CampaignUpdate,
  ): Promise<CampaignRecord | undefined> {
    // One statement: the status check and the version bump see the same row, whatever runs alongside (on
    // PostgreSQL a concurrent update waits for the row and re-checks the condition on its new version).
    // Fields the update leaves undefined are not set.
    const { updatedAt, brandVersion, ...changes } = update;
    const row = await this.session.db
      .updateTable('campaigns')
      .set((eb) => ({
        ...changes,
        ...(brandVersion === undefined ? {} : { brand_version: brandVersion }),
        version: eb('version', '+', 1),
        updated_at: updatedAt,
      }))
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('status', '=', fromStatus)
      .returningAll()
      .executeTakeFirst();
    return row && toCampaign(row);
  }
}
