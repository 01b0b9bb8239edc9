import { describe, expect, it } from 'vitest';
import { campaignEtag, ifMatchAllows, isEntityTagList } from './campaigns.js';

describe('isEntityTagList', () => {
  it('takes quoted, weak and listed tags and *, not a bare version', () => {
    for (const header of ['"3"', 'W/"3"', '"2", "3"', '*'])
      expect(isEntityTagList(header), header).toBe(true);
    for (const header of ['3', '', '"3', 'W/3']) expect(isEntityTagList(header), header).toBe(false);
  });
});

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
