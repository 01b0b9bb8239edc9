/**
 * How campaign versions meet HTTP's conditional requests (README "Campaign drafts"); what a campaign holds is
 * the contract's (src/contract/campaigns.ts).
 */
/** The ETag of a campaign version: strong, since a version has exactly one representation. */
export function campaignEtag(version: number): string {
  return `"${String(version)}"`;
}

/**
 * Whether an `If-Match` header lets a change to `version` go ahead: no header or `*` always does. Weak
 * tags are compared as strong ones, since proxies that compress a response weaken its ETag.
 */
export function ifMatchAllows(header: string | undefined, version: number): boolean {
  if (header === undefined) return true;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === campaignEtag(version));
}
