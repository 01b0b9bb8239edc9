import { newId } from '../../core/base62.js';
import { type BrandContext, type BrandDocument, settleBrandDocument } from '../../core/brand-context.js';
import { isoAt } from '../../core/clock.js';
import { ifMatchAdvice, ifMatchAllows, ifMatchNamesVersions, versionEtag } from '../../core/entity-tags.js';
import { AppError } from '../../core/errors.js';
import type { BrandContent } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { type EventRepositories, publishEvent } from '../webhooks/events.js';

export async function getBrand(deps: Deps<'brand'>, workspaceId: string): Promise<BrandContext> {
  const brand = await deps.store.brand.get(workspaceId);
  if (!brand) throw new AppError('workspace_not_found', { workspaceId });
  return brand;
}

function contentOf({
  workspace_id: _id,
  updated_at: _at,
  version: _version,
  ...content
}: BrandContext): BrandContent {
  return content;
}

/** The brand's top-level fields whose content changed: what a receiver may want to read again. */
function changedSections(before: BrandContext, after: BrandContext): (keyof BrandContent)[] {
  const [old, current] = [contentOf(before), contentOf(after)];
  return (Object.keys(current) as (keyof BrandContent)[]).filter(
    (field) => JSON.stringify(old[field]) !== JSON.stringify(current[field]),
  );
}

/** The brand's ETag on the management API: its version, so a save based on an older one can be told apart. */
export function brandEtag(brand: Pick<BrandContext, 'version'>): string {
  return versionEtag(brand.version);
}

function preconditionFailed(workspaceId: string, version: number, ifMatch: string | undefined): AppError {
  return new AppError('precondition_failed', { workspaceId, version }, ifMatchAdvice(ifMatch));
}

/**
 * Stores `document` in place of the current brand, in one transaction. Callers parse it at their
 * boundary (the route's schema, or `parseBrandDocument` in the CLI), so an invalid one
 * never gets here. An identical document changes nothing (the version only moves when the brand does).
 * With `ifMatch` (docs/management-api.md "Brand"), a document based on a version someone has saved over since answers 412
 * and writes nothing; the write itself checks the version, so two saves based on the same one cannot both
 * land. Without it, or with `*`, the document replaces whatever version is current.
 */
export async function replaceBrand(
  deps: Deps<'brand' | 'audit' | EventRepositories>,
  actor: Actor,
  workspaceId: string,
  document: BrandDocument,
  ifMatch?: string,
): Promise<BrandContext> {
  return deps.store.transaction(async (tx) => {
    const previous = await tx.brand.get(workspaceId);
    if (!previous) throw new AppError('workspace_not_found', { workspaceId });
    if (!ifMatchAllows(ifMatch, brandEtag(previous))) {
      throw preconditionFailed(workspaceId, previous.version, ifMatch);
    }
    const now = isoAt(deps.clock);
    const content = settleBrandDocument(document, previous, now, (prefix) => newId(prefix, 16));
    if (JSON.stringify(content) === JSON.stringify(contentOf(previous))) return previous;
    const saved = ifMatchNamesVersions(ifMatch)
      ? await tx.brand.replaceAtVersion(workspaceId, previous.version, content, now)
      : await tx.brand.replace(workspaceId, content, now);
    if (!saved) {
      // Another save landed between the read above and this write (PostgreSQL runs them side by side).
      const current = await tx.brand.get(workspaceId);
      throw preconditionFailed(workspaceId, current?.version ?? previous.version, ifMatch);
    }
    await recordAudit(tx, actor, now, {
      workspaceId,
      action: 'brand.updated',
      targetType: 'brand',
      targetId: workspaceId,
      details: {
        version: saved.version,
        knowledge: saved.knowledge.length,
        assets: saved.assets.length,
        skills: saved.skills.length,
      },
    });
    await publishEvent(tx, now, {
      workspaceId,
      type: 'brand.updated',
      data: {
        brand: { name: saved.name, version: saved.version, updated_at: saved.updated_at },
        changed: changedSections(previous, saved),
      },
    });
    return saved;
  });
}
