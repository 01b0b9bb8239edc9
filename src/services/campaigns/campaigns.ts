import type {
  Campaign,
  CampaignChanges,
  CampaignPage,
  CampaignStatus,
  CampaignSummary,
  NewCampaign,
} from '../../contract/campaigns.js';
import { newId } from '../../core/base62.js';
import { campaignEtag } from '../../core/campaigns.js';
import { ifMatchAdvice, ifMatchAllows } from '../../core/entity-tags.js';
import { isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import type { CampaignRecord, CampaignsRepository, CampaignUpdate, Repositories } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import { timeOrderedPage } from '../shared/cursors.js';
import type { Deps } from '../shared/deps.js';
import { type EventRepositories, publishEvent } from '../webhooks/events.js';

/** The record carries the content under the contract's names: only the lifecycle fields are renamed. */
export function toCampaignView(record: CampaignRecord): Campaign {
  const { id, workspaceId, status, version, brandVersion, createdAt, updatedAt, ...content } = record;
  return {
    id,
    workspace_id: workspaceId,
    ...content,
    status,
    version,
    brand_version: brandVersion ?? null,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

/**
 * The version of the published brand a draft is written against now (docs/campaigns.md "Campaign drafts"),
 * read in the draft's transaction; null if the workspace has no brand.
 */
async function publishedBrandVersion(
  tx: Pick<Repositories, 'brand'>,
  workspaceId: string,
): Promise<number | null> {
  return (await tx.brand.get(workspaceId))?.version ?? null;
}

function toSummary(record: CampaignRecord): CampaignSummary {
  const { body_html: _html, body_text: _text, ...summary } = toCampaignView(record);
  return summary;
}

/** One page of a workspace's campaigns, newest first; every campaign appears on exactly one page. */
export async function listCampaigns(
  deps: Deps<'campaigns'>,
  workspaceId: string,
  page: { limit: number; cursor?: string | undefined; status?: CampaignStatus | undefined },
): Promise<CampaignPage> {
  const { records, next_cursor } = await timeOrderedPage(page, (after, limit) =>
    deps.store.campaigns.list(workspaceId, { status: page.status, after, limit }),
  );
  return { campaigns: records.map(toSummary), next_cursor };
}

async function requireCampaign(
  campaigns: CampaignsRepository,
  workspaceId: string,
  id: string,
): Promise<CampaignRecord> {
  const campaign = await campaigns.get(workspaceId, id);
  if (!campaign) throw new AppError('campaign_not_found', { workspaceId, campaignId: id });
  return campaign;
}

export async function getCampaign(
  deps: Deps<'campaigns'>,
  workspaceId: string,
  id: string,
): Promise<Campaign> {
  return toCampaignView(await requireCampaign(deps.store.campaigns, workspaceId, id));
}

export async function createCampaign(
  deps: Deps<'campaigns' | 'brand' | 'audit' | EventRepositories>,
  actor: Actor,
  workspaceId: string,
  draft: NewCampaign,
): Promise<Campaign> {
  const now = isoAt(deps.clock);
  const created = await deps.store.transaction(async (tx) => {
    const record: CampaignRecord = {
      id: newId('cmp'),
      workspaceId,
      ...draft,
      status: 'draft',
      version: 1,
      brandVersion: await publishedBrandVersion(tx, workspaceId),
      createdAt: now,
      updatedAt: now,
    };
    await tx.campaigns.create(record);
    await recordAudit(tx, actor, now, {
      workspaceId,
      action: 'campaign.created',
      targetType: 'campaign',
      targetId: record.id,
      details: { name: record.name },
    });
    await publishEvent(tx, now, {
      workspaceId,
      type: 'campaign.created',
      data: { campaign: toSummary(record) },
    });
    return record;
  });
  return toCampaignView(created);
}

/**
 * Applies a change to a draft in one transaction, to whatever version is current: concurrent changes apply
 * one after the other, each raising the version by one. With `ifMatch`, the version the change was applied
 * to is checked afterwards, and a mismatch (412) rolls the change back: nothing can slip in between.
 */
async function changeDraft(
  deps: Deps<'campaigns' | 'brand' | 'audit' | EventRepositories>,
  actor: Actor,
  target: { workspaceId: string; id: string; ifMatch: string | undefined },
  change: {
    update: Omit<CampaignUpdate, 'updatedAt' | 'brandVersion'>;
    action: 'campaign.updated' | 'campaign.scheduled';
    details: Record<string, string>;
    /** Whether the change rewrites content, so the draft is now written against the brand as published. */
    rewrites: boolean;
  },
): Promise<Campaign> {
  const { workspaceId, id, ifMatch } = target;
  const now = isoAt(deps.clock);
  const updated = await deps.store.transaction(async (tx) => {
    const brandVersion = change.rewrites
      ? { brandVersion: await publishedBrandVersion(tx, workspaceId) }
      : {};
    const result = await tx.campaigns.update(workspaceId, id, 'draft', {
      ...change.update,
      ...brandVersion,
      updatedAt: now,
    });
    if (!result) {
      const current = await requireCampaign(tx.campaigns, workspaceId, id);
      throw new AppError('campaign_not_draft', { campaignId: id, status: current.status });
    }
    const appliedTo = result.version - 1;
    if (!ifMatchAllows(ifMatch, campaignEtag(appliedTo))) {
      throw new AppError('version_mismatch', { campaignId: id, version: appliedTo }, ifMatchAdvice(ifMatch));
    }
    await recordAudit(tx, actor, now, {
      workspaceId,
      action: change.action,
      targetType: 'campaign',
      targetId: id,
      details: { name: result.name, ...change.details },
    });
    // The summary: bodies can be megabytes, and a receiver that needs them reads the campaign.
    await publishEvent(tx, now, { workspaceId, type: change.action, data: { campaign: toSummary(result) } });
    return result;
  });
  return toCampaignView(updated);
}

export function updateCampaign(
  deps: Deps<'campaigns' | 'brand' | 'audit' | EventRepositories>,
  actor: Actor,
  target: { workspaceId: string; id: string; ifMatch: string | undefined },
  changes: CampaignChanges,
): Promise<Campaign> {
  // JSON has no undefined: the keys present are the fields the caller changed.
  const fields = Object.keys(changes);
  return changeDraft(deps, actor, target, {
    update: changes,
    action: 'campaign.updated',
    details: { fields: fields.join(', ') },
    rewrites: true,
  });
}

/** Hands a draft to delivery: from here on it no longer changes. */
export function scheduleCampaign(
  deps: Deps<'campaigns' | 'brand' | 'audit' | EventRepositories>,
  actor: Actor,
  target: { workspaceId: string; id: string; ifMatch: string | undefined },
): Promise<Campaign> {
  return changeDraft(deps, actor, target, {
    update: { status: 'scheduled' },
    action: 'campaign.scheduled',
    details: {},
    rewrites: false,
  });
}
