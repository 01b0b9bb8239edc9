import { describe, expect, it } from 'vitest';
import { nulCharacterFields, parseInput, nameSchema } from './inputs.js';
import { AppError } from './errors.js';

describe('nulCharacterFields', () => {
  it('names every string and object key that holds a NUL character, however deep', () => {
    expect(
      nulCharacterFields({
        name: 'a\0',
        knowledge: [{ tags: ['ok', 'b\0'] }],
        social: { 'x\0': 'https://x' },
      }),
    ).toEqual(['name', 'knowledge[0].tags[1]', 'social.x\0']);
  });

  it('finds nothing in ordinary values', () => {
    expect(nulCharacterFields({ name: 'Acme', n: 1, list: [null, true], nested: { a: '\\u0000' } })).toEqual(
      [],
    );
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
