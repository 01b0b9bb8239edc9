import { newId } from '../../core/base62.js';
import {
  BRAND_SECTIONS,
  type BrandContext,
  type BrandDocument,
  type BrandSection,
  settleBrandDocument,
} from '../../core/brand-context.js';
import { isoAt } from '../../core/clock.js';
import { ifMatchAdvice, ifMatchAllows, ifMatchNamesVersions, versionEtag } from '../../core/entity-tags.js';
import { AppError } from '../../core/errors.js';
import type { BrandChange, BrandContent, ChangeAuthor, Repositories, UnitOfWork } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { type EventRepositories, publishEvent } from '../webhooks/events.js';

export async function getBrand(deps: Deps<'brand'>, workspaceId: string): Promise<BrandContext> {
  const brand = await deps.store.brand.get(workspaceId);
  if (!brand) throw new AppError('workspace_not_found', { workspaceId });
  return brand;
}

export function contentOf({
  workspace_id: _id,
  updated_at: _at,
  version: _version,
  ...content
}: BrandContext): BrandContent {
  return content;
}

/** The brand's top-level fields whose content changed: what a receiver may want to read again. */
export function changedSections(before: BrandContent, after: BrandContent): BrandSection[] {
  return BRAND_SECTIONS.filter(
    (section) => JSON.stringify(before[section]) !== JSON.stringify(after[section]),
  );
}

/** The brand's ETag on the management API: its version, so a save based on an older one can be told apart. */
export function brandEtag(brand: Pick<BrandContext, 'version'>): string {
  return versionEtag(brand.version);
}

function preconditionFailed(workspaceId: string, version: number, ifMatch: string | undefined): AppError {
  return new AppError('precondition_failed', { workspaceId, version }, ifMatchAdvice(ifMatch));
}

/** The author of a change, as the brand's history records it. */
export function changeAuthorOf(actor: Actor): ChangeAuthor {
  return {
    actorType: actor.kind,
    actorId: actor.kind === 'user' ? actor.userId : actor.kind === 'api_key' ? actor.keyId : null,
    actorEmail: actor.kind === 'user' ? actor.email : null,
  };
}

/** What changes the published brand: a save, a restore, a published draft, a rename of the workspace. */
export interface BrandChangeRequest {
  /** The content to publish, settled (ids and timestamps) against the brand as it is now. */
  content: BrandContent;
  note: string | null;
  /** Write only while the published brand is still at this version (else undefined, nothing written). */
  atVersion?: number;
  /** The audit action: `brand.updated`, `brand.restored`, `brand.published`. */
  action: string;
  /** Extra audit details (e.g. the version restored). */
  details?: Record<string, string | number | null>;
}

/**
 * Publishes a new version of the brand inside the caller's transaction: the brand, its version in the
 * history, the audit entry and the `brand.updated` event land together or not at all. Content identical
 * to `previous` publishes nothing and answers `previous`. Undefined when `atVersion` no longer holds.
 */
export async function commitBrandChange(
  tx: UnitOfWork<'brand' | 'audit' | EventRepositories>,
  now: string,
  actor: Actor,
  previous: BrandContext,
  change: BrandChangeRequest,
): Promise<BrandContext | undefined> {
  const workspaceId = previous.workspace_id;
  if (JSON.stringify(change.content) === JSON.stringify(contentOf(previous))) return previous;
  const sectionsChanged = changedSections(contentOf(previous), change.content);
  const record: BrandChange = { ...changeAuthorOf(actor), note: change.note, sectionsChanged };
  const saved =
    change.atVersion === undefined
      ? await tx.brand.replace(workspaceId, change.content, now, record)
      : await tx.brand.replaceAtVersion(workspaceId, change.atVersion, change.content, now, record);
  if (!saved) return undefined;
  await recordAudit(tx, actor, now, {
    workspaceId,
    action: change.action,
    targetType: 'brand',
    targetId: workspaceId,
    details: {
      version: saved.version,
      note: change.note,
      sections: sectionsChanged.join(','),
      ...change.details,
    },
  });
  await publishEvent(tx, now, {
    workspaceId,
    type: 'brand.updated',
    data: {
      brand: { name: saved.name, version: saved.version, updated_at: saved.updated_at },
      version: saved.version,
      note: change.note,
      changed: sectionsChanged,
    },
  });
  return saved;
}

/** Refuses a direct change of the published brand where changes wait for review. */
export async function assertNoReviewRequired(
  store: Pick<Repositories, 'workspaces'>,
  workspaceId: string,
): Promise<void> {
  const workspace = await store.workspaces.get(workspaceId);
  if (!workspace) throw new AppError('workspace_not_found', { workspaceId });
  if (workspace.brandReview === 'required') throw new AppError('review_required', { workspaceId });
}

/**
 * Stores `document` in place of the current brand, in one transaction, as a new version with `note`.
 * Callers parse it at their boundary (the route's schema, or `parseBrandDocument` in the CLI), so an
 * invalid one never gets here. An identical document changes nothing (the version only moves when the
 * brand does). Where review is required (docs/brand-versions.md "Review"), 409 `review_required`: changes go
 * to the draft. With `ifMatch` (docs/management-api.md "Brand"), a document based on a version someone has
 * saved over since answers 412 and writes nothing; the write itself checks the version, so two saves based
 * on the same one cannot both land. Without it, or with `*`, the document replaces whatever version is current.
 */
export async function replaceBrand(
  deps: Deps<'brand' | 'workspaces' | 'audit' | EventRepositories>,
  actor: Actor,
  workspaceId: string,
  document: BrandDocument,
  options: { ifMatch?: string | undefined; note?: string | null | undefined } = {},
): Promise<BrandContext> {
  const { ifMatch } = options;
  return deps.store.transaction(async (tx) => {
    const previous = await tx.brand.get(workspaceId);
    if (!previous) throw new AppError('workspace_not_found', { workspaceId });
    await assertNoReviewRequired(tx, workspaceId);
    if (!ifMatchAllows(ifMatch, brandEtag(previous))) {
      throw preconditionFailed(workspaceId, previous.version, ifMatch);
    }
    const now = isoAt(deps.clock);
    const content = settleBrandDocument(document, previous, now, (prefix) => newId(prefix, 16));
    const saved = await commitBrandChange(tx, now, actor, previous, {
      content,
      note: options.note ?? null,
      ...(ifMatchNamesVersions(ifMatch) ? { atVersion: previous.version } : {}),
      action: 'brand.updated',
    });
    if (!saved) {
      // Another save landed between the read above and this write (PostgreSQL runs them side by side).
      const current = await tx.brand.get(workspaceId);
      throw preconditionFailed(workspaceId, current?.version ?? previous.version, ifMatch);
    }
    return saved;
  });
}
