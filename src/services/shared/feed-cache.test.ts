import { describe, expect, it } from 'vitest';
import { andThen } from './feed-cache.js';

describe('andThen', () => {
  it('answers at once for a value, so that a cached read waits for nothing', () => {
    const result = andThen(2, (value) => value * 3);
    expect(result).toBe(6);
  });

  it('answers after a promise, with the promise refused when it is', async () => {
    const result = andThen(Promise.resolve(2), (value) => value * 3);
    expect(result).toBeInstanceOf(Promise);
    await expect(result).resolves.toBe(6);
    await expect(andThen(Promise.reject(new Error('store down')), () => 1)).rejects.toThrow('store down');
  });

  it('lets a step that throws at once throw to its caller', () => {
    expect(() =>
      andThen(1, () => {
        throw new Error('refused');
      }),
    ).toThrow('refused');
  });
});
