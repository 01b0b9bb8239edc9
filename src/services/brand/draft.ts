import { newId } from '../../core/base62.js';
import { type BrandContext, type BrandDocument, settleBrandDocument } from '../../core/brand-context.js';
import { draftEtag } from '../../core/brand-versions.js';
import { isoAt } from '../../core/clock.js';
import { ifMatchAdvice, listsEntityTag } from '../../core/entity-tags.js';
import { AppError } from '../../core/errors.js';
import type { BrandDraftRecord, Repositories, UnitOfWork } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { type EventRepositories, publishEvent } from '../webhooks/events.js';
import { changeAuthorOf, changedSections, commitBrandChange, contentOf } from './brand.js';

/*
 * The brand draft (docs/brand-versions.md "Review"): while a workspace's review is `required`, changes wait in
 * one draft per workspace, which everyone may edit and only owners and admins publish or discard. The draft
 * has its own ETag (`"draft-N"`, never a published version's); publishing it makes a version through
 * commitBrandChange like any other change of the published brand.
 */

type DraftDeps = Deps<'brand' | 'workspaces' | 'audit' | EventRepositories>;
type DraftTx = UnitOfWork<'brand' | 'workspaces' | 'audit' | EventRepositories>;

/** The draft's ETag, for the routes' `ETag` header. */
export function draftEtagOf(draft: Pick<BrandDraftRecord, 'revision'>): string {
  return draftEtag(draft.revision);
}

/**
 * The draft in the brand context's shape (docs/reading-brand-context.md "The brand context object"):
 * `version` is the published version it was saved against, `updated_at` when it was saved.
 */
export function draftView(draft: BrandDraftRecord): BrandContext {
  return {
    workspace_id: draft.workspaceId,
    ...draft.content,
    updated_at: draft.updatedAt,
    version: draft.baseVersion,
  };
}

/**
 * Whether If-Match lets a change to `draft` go ahead. Absent, always; otherwise the draft must exist (`*`
 * included: RFC 9110 13.1.1) and be at a revision the header names.
 */
function draftIfMatchAllows(header: string | undefined, draft: BrandDraftRecord | undefined): boolean {
  if (header === undefined) return true;
  return draft !== undefined && listsEntityTag(header, draftEtagOf(draft));
}

function draftPreconditionFailed(
  workspaceId: string,
  draft: BrandDraftRecord | undefined,
  ifMatch: string | undefined,
): AppError {
  return new AppError(
    'draft_precondition_failed',
    { workspaceId, revision: draft?.revision ?? null },
    ifMatchAdvice(ifMatch),
  );
}

/** The published brand, refusing where review is off (no draft is kept there). */
async function publishedUnderReview(
  store: Pick<Repositories, 'brand' | 'workspaces'>,
  workspaceId: string,
): Promise<BrandContext> {
  // One after the other: inside a transaction, both go through its one connection anyway.
  const workspace = await store.workspaces.get(workspaceId);
  const published = await store.brand.get(workspaceId);
  if (!workspace || !published) throw new AppError('workspace_not_found', { workspaceId });
  if (workspace.brandReview !== 'required') throw new AppError('review_off', { workspaceId });
  return published;
}

async function draftUpdated(
  tx: DraftTx,
  actor: Actor,
  now: string,
  draft: BrandDraftRecord,
  published: BrandContext,
  action: 'saved' | 'discarded',
): Promise<void> {
  const changed = changedSections(contentOf(published), draft.content);
  await recordAudit(tx, actor, now, {
    workspaceId: draft.workspaceId,
    action: action === 'saved' ? 'brand.draft_saved' : 'brand.draft_discarded',
    targetType: 'brand',
    targetId: draft.workspaceId,
    details: { revision: draft.revision, base_version: draft.baseVersion, sections: changed.join(',') },
  });
  await publishEvent(tx, now, {
    workspaceId: draft.workspaceId,
    type: 'brand.draft_updated',
    data: {
      draft: { revision: draft.revision, base_version: draft.baseVersion, updated_at: draft.updatedAt },
      action,
      changed,
    },
  });
}

/** The workspace's draft: 404 `draft_not_found` when there is none (always so while review is off). */
export async function getBrandDraft(
  deps: Deps<'brand' | 'workspaces'>,
  workspaceId: string,
): Promise<BrandDraftRecord> {
  const [workspace, draft] = await Promise.all([
    deps.store.workspaces.get(workspaceId),
    deps.store.brand.getDraft(workspaceId),
  ]);
  if (!workspace) throw new AppError('workspace_not_found', { workspaceId });
  if (workspace.brandReview !== 'required' || !draft) throw new AppError('draft_not_found', { workspaceId });
  return draft;
}

/** How many times an unconditional save reads the draft again after another save slipped in between. */
const UNCONDITIONAL_SAVE_ATTEMPTS = 10;

/**
 * Saves `document` as the draft, whole, against the brand as it is published now: entries keep their ids as
 * a save of the brand does (settled against the draft when there is one). With If-Match, only over the
 * revision it names (else 412 `draft_precondition_failed`, nothing written). The same content saved again
 * against the same published version writes nothing and answers the draft as it is.
 */
export async function saveBrandDraft(
  deps: DraftDeps,
  actor: Actor,
  workspaceId: string,
  document: BrandDocument,
  options: { ifMatch?: string | undefined } = {},
): Promise<BrandDraftRecord> {
  const { ifMatch } = options;
  return deps.store.transaction(async (tx) => {
    const published = await publishedUnderReview(tx, workspaceId);
    for (let attempt = 1; ; attempt += 1) {
      const current = await tx.brand.getDraft(workspaceId);
      if (!draftIfMatchAllows(ifMatch, current)) throw draftPreconditionFailed(workspaceId, current, ifMatch);
      const now = isoAt(deps.clock);
      const content = settleBrandDocument(document, current?.content ?? published, now, (prefix) =>
        newId(prefix, 16),
      );
      if (
        current &&
        current.baseVersion === published.version &&
        JSON.stringify(current.content) === JSON.stringify(content)
      )
        return current;
      const draft: BrandDraftRecord = {
        workspaceId,
        content,
        baseVersion: published.version,
        revision: (current?.revision ?? 0) + 1,
        updatedAt: now,
        ...changeAuthorOf(actor),
      };
      if (await tx.brand.saveDraft(draft, current?.revision ?? null)) {
        await draftUpdated(tx, actor, now, draft, published, 'saved');
        return draft;
      }
      // Another save landed between the read above and this write (PostgreSQL runs them side by side).
      if (ifMatch !== undefined || attempt >= UNCONDITIONAL_SAVE_ATTEMPTS)
        throw draftPreconditionFailed(workspaceId, await tx.brand.getDraft(workspaceId), ifMatch);
    }
  });
}

/**
 * Deletes the draft unpublished (with If-Match, only at the revision it names): 404 when there is none, 409
 * `review_off` while review is off, as the other writes of the draft.
 */
export async function discardBrandDraft(
  deps: DraftDeps,
  actor: Actor,
  workspaceId: string,
  options: { ifMatch?: string | undefined } = {},
): Promise<void> {
  const { ifMatch } = options;
  await deps.store.transaction(async (tx) => {
    const published = await publishedUnderReview(tx, workspaceId);
    const current = await tx.brand.getDraft(workspaceId);
    if (!current) throw new AppError('draft_not_found', { workspaceId });
    if (!draftIfMatchAllows(ifMatch, current)) throw draftPreconditionFailed(workspaceId, current, ifMatch);
    const taken = await tx.brand.takeDraft(workspaceId, current.revision);
    if (!taken) throw await draftGone(tx, workspaceId, ifMatch);
    await draftUpdated(tx, actor, isoAt(deps.clock), taken, published, 'discarded');
  });
}

/** Why a draft read a moment ago could not be taken: someone published, discarded or saved it meanwhile. */
async function draftGone(
  tx: Pick<Repositories, 'brand'>,
  workspaceId: string,
  ifMatch: string | undefined,
): Promise<AppError> {
  const now = await tx.brand.getDraft(workspaceId);
  return now
    ? draftPreconditionFailed(workspaceId, now, ifMatch)
    : new AppError('draft_not_found', { workspaceId });
}

export interface PublishedDraft {
  brand: BrandContext;
  /** Whether a new version was made: false when the draft held the published content already. */
  created: boolean;
}

/**
 * Publishes the draft as a new version with `note`, in one transaction: the draft is taken (so of two
 * publishes at once, one gets it and the other 404 `draft_not_found`), then the brand is written only while
 * it is still at the version the draft was saved against, else 409 `draft_outdated` and the draft stays.
 * A draft holding the published content already is removed, and the brand answered as it is.
 */
export async function publishBrandDraft(
  deps: DraftDeps,
  actor: Actor,
  workspaceId: string,
  options: { ifMatch?: string | undefined; note?: string | null | undefined } = {},
): Promise<PublishedDraft> {
  const { ifMatch } = options;
  return deps.store.transaction(async (tx) => {
    const published = await publishedUnderReview(tx, workspaceId);
    const current = await tx.brand.getDraft(workspaceId);
    if (!current) throw new AppError('draft_not_found', { workspaceId });
    if (!draftIfMatchAllows(ifMatch, current)) throw draftPreconditionFailed(workspaceId, current, ifMatch);
    const draft = await tx.brand.takeDraft(workspaceId, current.revision);
    if (!draft) throw await draftGone(tx, workspaceId, ifMatch);
    const outdated = (version: number) =>
      new AppError('draft_outdated', { workspaceId, baseVersion: draft.baseVersion, version });
    if (draft.baseVersion !== published.version) throw outdated(published.version);
    const saved = await commitBrandChange(tx, isoAt(deps.clock), actor, published, {
      content: draft.content,
      note: options.note ?? null,
      atVersion: draft.baseVersion,
      action: 'brand.published',
      details: { revision: draft.revision },
    });
    if (!saved) {
      // Another change of the brand landed since it was read (PostgreSQL runs them side by side).
      const now = await tx.brand.get(workspaceId);
      throw outdated(now?.version ?? published.version);
    }
    return { brand: saved, created: saved.version !== published.version };
  });
}
