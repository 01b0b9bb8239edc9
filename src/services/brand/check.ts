import type { BrandCheckResult } from '../../contract/brand-check.js';
import type { BrandContext } from '../../core/brand-context.js';
import {
  type BrandCheckContent,
  type BrandChecker,
  checkPassed,
  compileBrandChecker,
} from '../../core/brand-check.js';
import { getCampaign } from '../campaigns/campaigns.js';
import type { Deps } from '../shared/deps.js';
import { andThen, type MaybePromise } from '../shared/feed-cache.js';
import type { BrandReader } from './reader.js';

/**
 * Each cached brand's rules compiled once (matchers, Lab colors): keyed by the reader's own context object,
 * which stays the same while its version is cached and is dropped with it, so a new version compiles anew and
 * nothing here needs evicting.
 */
const checkers = new WeakMap<BrandContext, BrandChecker>();

function checkerOf(context: BrandContext): BrandChecker {
  let checker = checkers.get(context);
  if (!checker) {
    checker = compileBrandChecker(context);
    checkers.set(context, checker);
  }
  return checker;
}

/** The check of `content` against a brand context (docs/brand-check.md): pure, nothing stored. */
export function checkAgainst(context: BrandContext, content: BrandCheckContent): BrandCheckResult {
  const findings = checkerOf(context).check(content);
  return { passed: checkPassed(findings), version: context.version, findings };
}

/**
 * The on-brand check of `content` against a workspace's published brand, or the version `version` pins
 * (404 `version_not_found` when it has none), of a workspace whose access the caller has already
 * established. Reads the brand through the read operation's cache; writes nothing.
 */
export function checkBrandContent(
  reader: Pick<BrandReader, 'readContext'>,
  workspaceId: string,
  content: BrandCheckContent,
  version?: number,
): MaybePromise<BrandCheckResult> {
  return andThen(reader.readContext(workspaceId, version), (context) => checkAgainst(context, content));
}

/**
 * A campaign draft's subject, text and HTML checked against the workspace's published brand
 * (docs/campaigns.md "Checking a draft"); 404 `campaign_not_found` when it has no such campaign.
 */
export async function checkCampaign(
  deps: Deps<'campaigns'>,
  reader: Pick<BrandReader, 'readContext'>,
  workspaceId: string,
  campaignId: string,
): Promise<BrandCheckResult> {
  const campaign = await getCampaign(deps, workspaceId, campaignId);
  return checkBrandContent(reader, workspaceId, {
    subject: campaign.subject,
    text: campaign.body_text,
    html: campaign.body_html,
  });
}
