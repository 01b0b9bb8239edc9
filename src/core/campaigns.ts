/**
 * How campaign versions meet HTTP's conditional requests (README "Campaign drafts"); what a campaign holds is
 * the contract's (src/contract/campaigns.ts).
 */
/** The ETag of a campaign version: strong, since a version has exactly one representation. */
export function campaignEtag(version: number): string {
  return `"${String(version)}"`;
}

/** `*`, or entity tags as RFC 9110 writes them: quoted, possibly weak, separated by commas. */
const ENTITY_TAGS = /^\s*(\*|(W\/)?"[^"]*"(\s*,\s*(W\/)?"[^"]*")*)\s*$/;

/** Whether `header` is written as If-Match must be: `If-Match: 3` names no ETag (`"3"` does). */
export function isEntityTagList(header: string): boolean {
  return ENTITY_TAGS.test(header);
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
