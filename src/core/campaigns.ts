/**
 * How campaign versions meet HTTP's conditional requests (docs/campaigns.md "Campaign drafts", src/core/entity-tags.ts);
 * what a campaign holds is the contract's (src/contract/campaigns.ts).
 */
import { versionEtag } from './entity-tags.js';

/** The ETag of a campaign version: the version in quotes. */
export function campaignEtag(version: number): string {
  return versionEtag(version);
}
