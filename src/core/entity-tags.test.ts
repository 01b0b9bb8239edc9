import { describe, expect, it } from 'vitest';
import {
  ifMatchAdvice,
  ifMatchAllows,
  ifMatchNamesVersions,
  isEntityTagList,
  versionEtag,
} from './entity-tags.js';

describe('isEntityTagList', () => {
  it('takes quoted, weak and listed tags and *, not a bare version', () => {
    for (const header of ['"3"', 'W/"3"', '"2", "3"', '*'])
      expect(isEntityTagList(header), header).toBe(true);
    for (const header of ['3', '', '"3', 'W/3']) expect(isEntityTagList(header), header).toBe(false);
  });
});

describe('ifMatchAllows', () => {
  it('lets a change through without the header, with *, and with the current ETag', () => {
    expect(ifMatchAllows(undefined, versionEtag(3))).toBe(true);
    expect(ifMatchAllows('*', versionEtag(3))).toBe(true);
    expect(ifMatchAllows(versionEtag(3), versionEtag(3))).toBe(true);
    expect(ifMatchAllows(`"1", ${versionEtag(3)}`, versionEtag(3))).toBe(true);
    expect(ifMatchAllows('W/"3"', versionEtag(3))).toBe(true);
  });

  it('stops a change based on another version, or on a tag this API never issued', () => {
    expect(ifMatchAllows('"2"', versionEtag(3))).toBe(false);
    expect(ifMatchAllows('3', versionEtag(3))).toBe(false);
    expect(ifMatchAllows('', versionEtag(3))).toBe(false);
  });
});

describe('ifMatchNamesVersions', () => {
  it('is true for tags, false without the header and with *', () => {
    expect(ifMatchNamesVersions('"3"')).toBe(true);
    expect(ifMatchNamesVersions('3')).toBe(true);
    expect(ifMatchNamesVersions(undefined)).toBe(false);
    expect(ifMatchNamesVersions('*')).toBe(false);
    expect(ifMatchNamesVersions('"3", *')).toBe(false);
  });
});

describe('ifMatchAdvice', () => {
  it('says to quote a bare version, and nothing about a well-written tag', () => {
    expect(ifMatchAdvice('3').advice).toContain('quotes included');
    expect(ifMatchAdvice('"2"')).toEqual({});
    expect(ifMatchAdvice(undefined)).toEqual({});
  });
});
