import { readFileSync } from 'node:fs';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { describe, expect, it } from 'vitest';
import { messageStatus, newEmailMessageSchema, parseAddress, RESERVED_HEADER } from './email.js';

describe('parseAddress', () => {
  it('reads a bare address, a display name, and a quoted display name, lower-casing the address', () => {
    expect(parseAddress('Ada@Example.com')).toEqual({ address: 'ada@example.com', name: undefined });
    expect(parseAddress('Ada Lovelace <ada@example.com>')).toEqual({
      address: 'ada@example.com',
      name: 'Ada Lovelace',
    });
    expect(parseAddress('"Lovelace, Ada" <ada@example.com>')).toEqual({
      address: 'ada@example.com',
      name: 'Lovelace, Ada',
    });
  });

  it('names what is wrong: a line break, a quote in a name, or no address at all', () => {
    expect(parseAddress('Ada\r\nBcc: eve@example.com <ada@example.com>')).toMatch(/line breaks/);
    expect(parseAddress('Ada "the" Countess <ada@example.com>')).toMatch(/display name/);
    expect(parseAddress('ada')).toMatch(/must be an email address/);
    expect(parseAddress('<>')).toMatch(/must be an email address/);
  });
});

describe('newEmailMessageSchema', () => {
  const base = { from: 'shop@example.com', subject: 'Receipt', text: 'Thanks' };

  it('takes one address or a list, and says which item of a list is wrong', () => {
    expect(newEmailMessageSchema.parse({ ...base, to: 'a@example.com' }).to).toEqual([
      { address: 'a@example.com', name: undefined },
    ]);
    const result = newEmailMessageSchema.safeParse({ ...base, to: ['a@example.com', 'nobody'] });
    const [issue] = result.error?.issues ?? [];
    expect(issue?.path).toEqual(['to']);
    expect(issue?.message).toMatch(/^item 2 must be an email address/);
  });

  it('takes X- header names in any case, but not the one this service sets', () => {
    expect(
      newEmailMessageSchema.safeParse({ ...base, to: 'a@example.com', headers: { 'x-order': '1' } }).success,
    ).toBe(true);
    expect(
      newEmailMessageSchema.safeParse({
        ...base,
        to: 'a@example.com',
        headers: { 'x-brand-context-id': 'em_1' },
      }).success,
    ).toBe(false);
  });
});

describe('a header field', () => {
  const base = { from: 'shop@example.com', to: 'a@example.com', text: 'Thanks' };
  const messagesOf = (fields: object) =>
    (newEmailMessageSchema.safeParse({ ...base, subject: 'Receipt', ...fields }).error?.issues ?? []).map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );

  it('refuses a line break once, as a line break, in the subject and in a header value', () => {
    expect(messagesOf({ subject: 'Receipt\r\nBcc: eve@example.com' })).toEqual([
      'subject: must be a single line: no line breaks (CR, LF, U+2028 or U+2029)',
    ]);
    expect(messagesOf({ headers: { 'X-Order': '1\n2' } })).toEqual([
      'headers.X-Order: must be a single line: no line breaks (CR, LF, U+2028 or U+2029)',
    ]);
  });

  it('takes a tab, and refuses other control characters', () => {
    expect(messagesOf({ subject: 'Receipt\t7' })).toEqual([]);
    expect(messagesOf({ subject: 'Receipt\u00077' })).toEqual([
      'subject: must not contain control characters (U+0000–U+001F but tab, U+007F–U+009F)',
    ]);
  });

  it('refuses two headers whose names differ only in case, naming the second', () => {
    expect(messagesOf({ headers: { 'X-A': '1', 'x-a': '2' } })).toEqual([
      'headers.x-a: duplicate header x-a (names ignore case)',
    ]);
  });
});

describe('messageStatus', () => {
  it('is deferred or queued while any recipient is, then the gravest outcome', () => {
    expect(messageStatus(['sent', 'deferred', 'queued'])).toBe('deferred');
    expect(messageStatus(['sent', 'queued'])).toBe('queued');
    expect(messageStatus(['sent', 'bounced', 'suppressed'])).toBe('bounced');
    expect(messageStatus(['sent', 'failed', 'bounced'])).toBe('failed');
    expect(messageStatus(['sent', 'sent'])).toBe('sent');
    expect(messageStatus(['captured', 'captured'])).toBe('captured');
    expect(messageStatus(['captured', 'suppressed'])).toBe('suppressed');
  });
});

describe('RESERVED_HEADER', () => {
  it('is spelled as the mail carries it, and as docs/email.md and docs/contracts.md name it', async () => {
    // The mailer writes header names in its own case (…-ID, not …-Id): what a receiver sees is its spelling.
    const raw = await new Promise<string>((resolve, reject) => {
      new MailComposer({ from: 'a@example.com', text: 'x', headers: { [RESERVED_HEADER]: 'em_1' } })
        .compile()
        .build((error, message) => {
          if (error) reject(error);
          else resolve(message.toString());
        });
    });
    expect(raw.split('\r\n')).toContain(`${RESERVED_HEADER}: em_1`);
    for (const doc of ['docs/email.md', 'docs/contracts.md']) {
      const named = readFileSync(new URL(`../../${doc}`, import.meta.url), 'utf8').match(
        /X-Brand-Context-I[Dd]/g,
      );
      expect(new Set(named), doc).toEqual(new Set([RESERVED_HEADER]));
    }
  });
});
