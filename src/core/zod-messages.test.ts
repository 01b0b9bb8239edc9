import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toFieldIssues } from './inputs.js';

function messageOf(schema: z.ZodType, input: unknown): string | undefined {
  const result = schema.safeParse(input);
  return result.success ? undefined : toFieldIssues(result.error.issues)[0]?.message;
}

describe('zod messages in the API’s words', () => {
  it.each([
    ['a missing field', z.object({ name: z.string() }), {}, 'is required'],
    [
      'a value of the wrong type',
      z.object({ enabled: z.boolean() }),
      { enabled: 'yes' },
      'must be true or false',
    ],
    ['an array for an object', z.object({}), [], 'must be an object'],
    ['an empty string', z.string().min(1), '', 'must not be empty'],
    ['a string too long', z.string().max(500), 'x'.repeat(501), 'must be at most 500 characters'],
    ['a number too small', z.number().min(1), 0, 'must be at least 1'],
    ['too few items', z.array(z.string()).min(2), ['a'], 'must be at least 2 items'],
    ['an unknown option', z.enum(['draft', 'sent']), 'gone', 'must be one of "draft", "sent"'],
  ])('words %s', (_case, schema, input, expected) => {
    expect(messageOf(schema, input)).toBe(expected);
  });

  it('leaves a schema’s own message as it is', () => {
    expect(messageOf(z.string().max(3, 'is too long for a name'), 'abcd')).toBe('is too long for a name');
  });
});
