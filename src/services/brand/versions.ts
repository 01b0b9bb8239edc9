import type { AuditActor } from '../../contract/audit.js';
import type { BrandVersion, BrandVersionDiffView, BrandVersionPage } from '../../contract/brand-versions.js';
import type { BrandContext } from '../../core/brand-context.js';
import { diffBrandSections } from '../../core/brand-versions.js';
import { isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import type { BrandVersionRecord, ChangeAuthor } from '../../store/store.js';
import type { Actor } from '../audit/audit.js';
import { decodeCursor, encodeCursor } from '../shared/cursors.js';
import type { Deps } from '../shared/deps.js';
import type { EventRepositories } from '../webhooks/events.js';
import { commitBrandChange, contentOf } from './brand.js';

/*
 * The brand's history (docs/brand-versions.md): every version as it was published, the changes between any
 * two, and restoring one as a new version. Versions never change, so none of this needs a lock but restore.
 */

/** Who made a change, as the audit log names them (src/contract/audit.ts). */
function authorView(author: ChangeAuthor): AuditActor {
  switch (author.actorType) {
    case 'user':
      return { type: 'user', id: author.actorId, email: author.actorEmail };
    case 'api_key':
      return { type: 'api_key', id: author.actorId };
    case 'operator':
      return { type: 'operator' };
    case 'system':
      return { type: 'system' };
  }
}

export function toBrandVersionView(record: BrandVersionRecord): BrandVersion {
  return {
    version: record.version,
    created_at: record.createdAt,
    created_by: authorView(record),
    note: record.note,
    sections_changed: record.sectionsChanged,
  };
}

/** A history cursor is the number of the last version shown: the next page holds the older ones. */
function readVersion(decoded: unknown): number | undefined {
  return Number.isSafeInteger(decoded) && (decoded as number) >= 1 ? (decoded as number) : undefined;
}

/** One page of the brand's history, newest first. */
export async function listBrandVersions(
  deps: Deps<'brand'>,
  workspaceId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<BrandVersionPage> {
  const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor, readVersion);
  // One more than the page holds: whether it comes says if another page follows.
  const records = await deps.store.brand.listVersions(workspaceId, {
    ...(before === undefined ? {} : { before }),
    limit: page.limit + 1,
  });
  const shown = records.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    items: shown.map(toBrandVersionView),
    next_cursor: records.length > page.limit && last ? encodeCursor(last.version) : null,
  };
}

async function versionOf(deps: Deps<'brand'>, workspaceId: string, version: number) {
  const found = await deps.store.brand.getVersion(workspaceId, version);
  if (found) return found;
  // Routes have checked the workspace before; the CLI has not, and should say which of the two is missing.
  if (!(await deps.store.brand.get(workspaceId))) throw new AppError('workspace_not_found', { workspaceId });
  throw new AppError('version_not_found', { workspaceId, version });
}

/** The brand exactly as it was at `version` (404 `version_not_found` when there is none). */
export async function getBrandVersion(
  deps: Deps<'brand'>,
  workspaceId: string,
  version: number,
): Promise<BrandContext> {
  return (await versionOf(deps, workspaceId, version)).brand;
}

/**
 * The per-section changes from version `from` to version `to`; `from` defaults to the version before `to`
 * (version 1 has none: 400 asking for `from`). Either order is allowed: from a newer to an older version
 * shows what going back would change.
 */
export async function diffBrandVersions(
  deps: Deps<'brand'>,
  workspaceId: string,
  to: number,
  from?: number,
): Promise<BrandVersionDiffView> {
  const newer = await versionOf(deps, workspaceId, to);
  if (from === undefined && to === 1) {
    throw new AppError('invalid_request', {
      reason: 'schema',
      fields: [{ field: 'from', message: 'is required with version 1, which has no version before it' }],
    });
  }
  const base = from ?? to - 1;
  const older = base === to ? newer : await versionOf(deps, workspaceId, base);
  return { from: base, to, sections: diffBrandSections(older.brand, newer.brand) };
}

/** How often a restore is tried over the version it read before it writes over whatever is there. */
const RESTORE_ATTEMPTS = 5;

/**
 * Publishes the content of `version` as a new version, with `note` (by default "Restored version n").
 * Content identical to the latest publishes nothing: `created` is false and the brand is answered as it is.
 * Allowed with review on too: only those who may publish restore (docs/brand-versions.md "Restore").
 */
export async function restoreBrandVersion(
  deps: Deps<'brand' | 'audit' | EventRepositories>,
  actor: Actor,
  workspaceId: string,
  version: number,
  note: string | null,
): Promise<{ brand: BrandContext; created: boolean }> {
  const content = contentOf((await versionOf(deps, workspaceId, version)).brand);
  for (let attempt = 1; ; attempt++) {
    const result = await deps.store.transaction(async (tx) => {
      const previous = await tx.brand.get(workspaceId);
      if (!previous) throw new AppError('workspace_not_found', { workspaceId });
      // Over the version read here, so that the sections recorded as changed are the ones that did; a save
      // landing in between (PostgreSQL runs them side by side) sends it round again, the last time over it.
      const saved = await commitBrandChange(tx, isoAt(deps.clock), actor, previous, {
        content,
        note: note ?? `Restored version ${String(version)}`,
        ...(attempt < RESTORE_ATTEMPTS ? { atVersion: previous.version } : {}),
        action: 'brand.restored',
        details: { restored_version: version },
      });
      return saved && { brand: saved, created: saved.version !== previous.version };
    });
    if (result) return result;
  }
}
