import { describe, expect, it } from 'vitest';
import { move, removeAt, replaceAt } from './rows';

describe('row edits', () => {
  const rows = ['a', 'b', 'c'] as const;

  it('replaces the row at an index and leaves the list it was given untouched', () => {
    expect(replaceAt(rows, 1, 'B')).toEqual(['a', 'B', 'c']);
    expect(rows).toEqual(['a', 'b', 'c']);
  });

  it('removes the row at an index, and nothing when the index is past the end', () => {
    expect(removeAt(rows, 0)).toEqual(['b', 'c']);
    expect(removeAt(rows, 5)).toEqual(['a', 'b', 'c']);
  });

  it('swaps a row with its neighbour above or below', () => {
    expect(move(rows, 1, -1)).toEqual(['b', 'a', 'c']);
    expect(move(rows, 1, 1)).toEqual(['a', 'c', 'b']);
  });

  it('keeps the order when a row would move past either end, as a new list', () => {
    const first = move(rows, 0, -1);
    expect(first).toEqual(['a', 'b', 'c']);
    expect(first).not.toBe(rows);
    expect(move(rows, 2, 1)).toEqual(['a', 'b', 'c']);
  });
});
