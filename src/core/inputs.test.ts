import { describe, expect, it } from 'vitest';
import { jsonNestsDeeperThan, nulCharacterPaths, parseInput, nameSchema } from './inputs.js';
import { AppError } from './errors.js';

describe('nulCharacterPaths', () => {
  it('names every string and object key that holds a NUL character, in document order', () => {
    expect(
      nulCharacterPaths({
        name: 'a\0',
        knowledge: [{ tags: ['ok', 'b\0'] }],
        social: { 'x\0': 'https://x' },
      }),
    ).toEqual([['name'], ['knowledge', 0, 'tags', 1], ['social', 'x\0']]);
  });

  it('finds nothing in ordinary values', () => {
    expect(nulCharacterPaths({ name: 'Acme', n: 1, list: [null, true], nested: { a: '\\u0000' } })).toEqual(
      [],
    );
  });

  it('walks a value nested 100,000 levels deep without overflowing the stack', () => {
    let deep: unknown = 'a\0';
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(nulCharacterPaths(deep)).toEqual([Array.from({ length: 100_000 }, () => 0)]);
  });
});

describe('jsonNestsDeeperThan', () => {
  it('counts the nesting of arrays and objects', () => {
    expect(jsonNestsDeeperThan('{"a":[[1]]}', 3)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":[[[1]]]}', 3)).toBe(true);
    expect(jsonNestsDeeperThan('[{}, {}, [], [[]]]', 3)).toBe(false);
  });

  it('ignores brackets and escaped quotes inside strings', () => {
    expect(jsonNestsDeeperThan('["[[[[", "\\"{{{{", "\\\\", "]"]', 1)).toBe(false);
    expect(jsonNestsDeeperThan('[{"s": "a \\" ["}]', 1)).toBe(true);
  });

  it('stops at the first level too deep of a 2 MB body', () => {
    expect(jsonNestsDeeperThan('['.repeat(1_000_000) + ']'.repeat(1_000_000), 64)).toBe(true);
  });

  it('leaves malformed JSON to the parser', () => {
    expect(jsonNestsDeeperThan('["unterminated', 0)).toBe(true);
    expect(jsonNestsDeeperThan('"unterminated [[[[', 1)).toBe(false);
  });
});

describe('parseInput', () => {
  it('refuses a NUL character with invalid_request naming the field', () => {
    const refused = (() => {
      try {
        parseInput(nameSchema, 'Acme\0', 'name');
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).fields).toEqual([
      { field: 'name', message: 'must not contain NUL (\\u0000) characters' },
    ]);
  });
});
