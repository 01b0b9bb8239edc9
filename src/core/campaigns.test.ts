import { describe, expect, it } from 'vitest';
import { campaignEtag, ifMatchAllows } from './campaigns.js';

describe('ifMatchAllows', () => {
  it('lets a change through without the header, with *, and with the current ETag', () => {
    expect(ifMatchAllows(undefined, 3)).toBe(true);
    expect(ifMatchAllows('*', 3)).toBe(true);
    expect(ifMatchAllows(campaignEtag(3), 3)).toBe(true);
    expect(ifMatchAllows(`"1", ${campaignEtag(3)}`, 3)).toBe(true);
    expect(ifMatchAllows('W/"3"', 3)).toBe(true);
  });

  it('stops a change based on another version, or on a tag this API never issued', () => {
    expect(ifMatchAllows('"2"', 3)).toBe(false);
    expect(ifMatchAllows('3', 3)).toBe(false);
    expect(ifMatchAllows('', 3)).toBe(false);
  });
});
