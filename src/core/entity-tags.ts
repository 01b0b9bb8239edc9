/**
 * How versioned resources (the brand, campaign drafts) meet HTTP's conditional writes: the ETag of a
 * version, and whether an If-Match header lets a change to it go ahead (docs/management-api.md "Brand" and docs/campaigns.md "Campaign drafts").
 *
 * Browser-safe (no Node imports): the console sends the same ETags.
 */

/** The ETag of a version: strong, since a version has exactly one representation. */
export function versionEtag(version: number): string {
  return `"${String(version)}"`;
}

/** `*`, or entity tags as RFC 9110 writes them: quoted, possibly weak, separated by commas. */
const ENTITY_TAGS = /^\s*(\*|(W\/)?"[^"]*"(\s*,\s*(W\/)?"[^"]*")*)\s*$/;

/** Whether `header` is written as If-Match must be: `If-Match: 3` names no ETag (`"3"` does). */
export function isEntityTagList(header: string): boolean {
  return ENTITY_TAGS.test(header);
}

/** A tag without its weakness: `W/"x"` is `"x"`. */
function opaque(tag: string): string {
  return tag.replace(/^W\//, '');
}

function tagsOf(header: string): string[] {
  return header.split(',').map((tag) => opaque(tag.trim()));
}

/**
 * Whether a list of entity tags (If-Match, If-None-Match) is `*` or names `etag`, compared weakly (`W/"x"`
 * matches `"x"`), since proxies that compress a response weaken its ETag.
 */
export function listsEntityTag(header: string, etag: string): boolean {
  const wanted = opaque(etag);
  return tagsOf(header).some((tag) => tag === '*' || tag === wanted);
}

/**
 * Whether an `If-Match` header lets a change to the representation tagged `etag` go ahead: no header or
 * `*` always does. Weak tags are compared as strong ones (listsEntityTag).
 */
export function ifMatchAllows(header: string | undefined, etag: string): boolean {
  return header === undefined || listsEntityTag(header, etag);
}

/** Whether `header` names particular versions, so the change must land on the one it matched or not at all. */
export function ifMatchNamesVersions(header: string | undefined): header is string {
  return header !== undefined && !tagsOf(header).includes('*');
}

/**
 * The advice a refused If-Match needs beyond its code's resolution: a bare `3` is refused like any tag this
 * API never issued, but said why, since it would read as a contradiction.
 */
export function ifMatchAdvice(header: string | undefined): { advice?: string } {
  return header !== undefined && !isEntityTagList(header)
    ? { advice: 'Send the ETag as the API sent it, quotes included: If-Match: "3", not If-Match: 3.' }
    : {};
}
