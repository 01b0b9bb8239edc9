import { z } from 'zod';

/*
 * zod's own messages ("Invalid input: expected string, received undefined", "Too big: expected string to
 * have <=500 characters") in the words this API's hand-written ones use ("must be at most 500 characters"),
 * so that every field error reads alike. A schema's own message still wins; this covers the rest. Set once,
 * for every schema, by importing this module (src/core/inputs.ts does, and the console's web/src/zod-config.ts).
 */

const KINDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function plural(count: number | bigint, noun: string): string {
  return `${String(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** What a size limit counts, by the kind of value it limits. */
function measure(origin: string, limit: number | bigint): string {
  if (origin === 'string') return plural(limit, 'character');
  if (origin === 'array' || origin === 'set') return plural(limit, 'item');
  return String(limit);
}

function message(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${KINDS[issue.expected] ?? issue.expected}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      return `must be at least ${measure(issue.origin, issue.minimum)}${issue.inclusive === false ? ' (exclusive)' : ''}`;
    case 'too_big':
      return `must be at most ${measure(issue.origin, issue.maximum)}${issue.inclusive === false ? ' (exclusive)' : ''}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'is not in the expected format' : `must be a valid ${issue.format}`;
    default:
      return undefined;
  }
}

z.config({ customError: message });
