import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CONTROL_MESSAGE,
  jsonNestsDeeperThan,
  LINE_BREAK_MESSAGE,
  nameSchema,
  NUL_MESSAGE,
  nulCharacterPaths,
  parseInput,
  singleLine,
  singleLineIssue,
} from './inputs.js';
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

describe('singleLineIssue', () => {
  it('takes one line of text, a tab, and any other character', () => {
    for (const text of ['', 'Acme Coffee', 'a\tb', 'Café ☕ 咖啡', '\u00a0non-breaking\u00a0', 'emoji 🫘'])
      expect(singleLineIssue(text), JSON.stringify(text)).toBeUndefined();
  });

  it.each([
    ['CR', '\r'],
    ['LF', '\n'],
    ['the line separator U+2028', '\u2028'],
    ['the paragraph separator U+2029', '\u2029'],
  ])('refuses %s as a line break', (_what, char) => {
    expect(singleLineIssue(`a${char}b`)).toBe(LINE_BREAK_MESSAGE);
  });

  it.each([
    ['U+0001', '\u0001'],
    ['the bell U+0007', '\u0007'],
    ['the escape U+001B', '\u001b'],
    ['DEL U+007F', '\u007f'],
    ['the C1 control U+0080', '\u0080'],
    ['NEL U+0085', '\u0085'],
    ['the C1 control U+009F', '\u009f'],
  ])('refuses %s as a control character', (_what, char) => {
    expect(singleLineIssue(`a${char}b`)).toBe(CONTROL_MESSAGE);
  });

  it('names NUL as the rest of the API does', () => {
    expect(singleLineIssue('a\0b')).toBe(NUL_MESSAGE);
  });
});

describe('nameSchema', () => {
  it('refuses a name that is not one line, naming the field once', () => {
    for (const [name, message] of [
      ['Acme\u2028Coffee', LINE_BREAK_MESSAGE],
      ['Acme\u0085Coffee', CONTROL_MESSAGE],
      ['Acme\u009bCoffee', CONTROL_MESSAGE],
      ['Acme\nCoffee', LINE_BREAK_MESSAGE],
    ] as const) {
      expect(() => parseInput(nameSchema, name, 'name')).toThrow(
        expect.objectContaining({ fields: [{ field: 'name', message }] }),
      );
    }
  });

  it('trims the line breaks around a name and keeps it', () => {
    expect(parseInput(nameSchema, '\n Acme Coffee \r\n', 'name')).toBe('Acme Coffee');
  });
});

describe('singleLine', () => {
  it('keeps the schema it refines: its limits and its type', () => {
    const subject = singleLine(z.string().max(5)).min(1);
    expect(subject.safeParse('').success).toBe(false);
    expect(subject.safeParse('123456').success).toBe(false);
    expect(subject.safeParse('a\u2029').error?.issues[0]?.message).toBe(LINE_BREAK_MESSAGE);
    expect(subject.parse('Hi')).toBe('Hi');
  });
});
