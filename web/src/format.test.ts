import { describe, expect, it } from 'vitest';
import { capitalize, daysUntil, plural } from './format';

describe('daysUntil', () => {
  const now = Date.parse('2025-01-01T12:00:00.000Z');

  it('counts a part of a day as a whole one, so a key created today expires in 90 days', () => {
    expect(daysUntil('2025-04-01T12:00:00.000Z', now)).toBe(90);
    expect(daysUntil('2025-01-01T12:00:01.000Z', now)).toBe(1);
  });

  it('says 0 at the very moment, and counts days already past as negative', () => {
    expect(daysUntil('2025-01-01T12:00:00.000Z', now)).toBe(0);
    expect(daysUntil('2024-12-30T12:00:00.000Z', now)).toBe(-2);
  });
});

describe('plural', () => {
  it('adds an s to every count but one', () => {
    expect(plural(1, 'key')).toBe('1 key');
    expect(plural(0, 'key')).toBe('0 keys');
    expect(plural(2, 'key')).toBe('2 keys');
  });
});

describe('capitalize', () => {
  it('upper-cases the first letter only, and leaves an empty text empty', () => {
    expect(capitalize('instagram')).toBe('Instagram');
    expect(capitalize('x_twitter')).toBe('X_twitter');
    expect(capitalize('')).toBe('');
  });
});
