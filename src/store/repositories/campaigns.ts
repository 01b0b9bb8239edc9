import type { Selectable } from 'kysely';
import type { Session } from '../session.js';
import type {
  CampaignCursor,
  CampaignRecord,
  CampaignsRepository,
  CampaignStatus,
  CampaignUpdate,
} from '../store.js';

export interface CampaignColumns {
  id: string;
  workspace_id: string;
  name: string;
  subject: string;
  preheader: string;
  body_html: string;
  body_text: string;
  status: CampaignStatus;
  version: number;
  created_at: string;
  updated_at: string;
}

function toCampaign(row: Selectable<CampaignColumns>): CampaignRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    subject: row.subject,
    preheader: row.preheader,
    bodyHtml: row.body_html,
    bodyText: row.body_text,
    status: row.status,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class CampaignsTable implements CampaignsRepository {
  constructor(private readonly session: Session) {}

  async create(campaign: CampaignRecord): Promise<void> {
    await this.session.db
      .insertInto('campaigns')
      .values({
        id: campaign.id,
        workspace_id: campaign.workspaceId,
        name: campaign.name,
        subject: campaign.subject,
        preheader: campaign.preheader,
        body_html: campaign.bodyHtml,
        body_text: campaign.bodyText,
        status: campaign.status,
        version: campaign.version,
        created_at: campaign.createdAt,
        updated_at: campaign.updatedAt,
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
    options: { status?: CampaignStatus | undefined; after?: CampaignCursor | undefined; limit: number },
  ): Promise<CampaignRecord[]> {
    const { status, after, limit } = options;
    let query = this.session.db.selectFrom('campaigns').selectAll().where('workspace_id', '=', workspaceId);
    if (status !== undefined) query = query.where('status', '=', status);
    if (after !== undefined) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
        ]),
      );
    }
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
    const row = await this.session.db
      .updateTable('campaigns')
      .set((eb) => ({
        name: update.name,
        subject: update.subject,
        preheader: update.preheader,
        body_html: update.bodyHtml,
        body_text: update.bodyText,
        status: update.status,
        version: eb('version', '+', 1),
        updated_at: update.updatedAt,
      }))
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('status', '=', fromStatus)
      .returningAll()
      .executeTakeFirst();
    return row && toCampaign(row);
  }
}
