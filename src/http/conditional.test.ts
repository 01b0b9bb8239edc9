import { describe, expect, it } from 'vitest';
import { ifNoneMatchMatches } from './conditional.js';

describe('ifNoneMatchMatches', () => {
  const etag = '"abc"';

  it('matches the same tag, strong or weak on either side', () => {
    expect(ifNoneMatchMatches('"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('W/"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('"abc"', 'W/"abc"')).toBe(true);
  });

  it('matches a tag anywhere in a list, and *', () => {
    expect(ifNoneMatchMatches('"x", W/"y" ,"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('*', etag)).toBe(true);
  });

  it('does not match another tag, an unquoted one, or no header', () => {
    expect(ifNoneMatchMatches('"abd"', etag)).toBe(false);
    expect(ifNoneMatchMatches('abc', etag)).toBe(false);
    expect(ifNoneMatchMatches('', etag)).toBe(false);
    expect(ifNoneMatchMatches(undefined, etag)).toBe(false);
  });
});
