import { listsEntityTag } from '../core/entity-tags.js';

/**
 * RFC 9110 §13.1.2 `If-None-Match` as an origin server evaluates it: true when the header is `*` or lists the
 * representation's entity tag, compared weakly (`W/"x"` matches `"x"`). An origin does not look at
 * Cache-Control here, which is for caches: browsers' and Node's fetch add `no-cache` to every request that
 * carries If-None-Match, so honouring it would make conditional reads from fetch never answer 304.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  return header !== undefined && listsEntityTag(header, etag);
}
