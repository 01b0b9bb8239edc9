import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { EMAIL_LIMITS, EMAIL_REQUEST_LIMIT } from '../../../contract/email.js';
import { describeEachBackend } from '#test/support/databases.js';
import { EMAIL_MESSAGES_URL, emailApi, emailKeys, message, sendEmail } from '#test/support/fixtures/email.js';
import {
  expectNonJsonRefused,
  outcome,
  problemOf,
  refused,
  unchanged,
  useFixture,
} from '#test/support/http-fixture.js';

const addresses = (count: number, domain = 'example.com') =>
  Array.from({ length: count }, (_, index) => `r${String(index)}@${domain}`);

/** Bodies POST /email/v1/messages refuses, each with exactly the fields its 400 must name. */
const INVALID: { case: string; body: unknown; fields: string[] }[] = [
  { case: 'no from', body: message({ from: undefined }), fields: ['from'] },
  { case: 'a from that is no address', body: message({ from: 'Acme <>' }), fields: ['from'] },
  { case: 'no to', body: message({ to: undefined }), fields: ['to'] },
  { case: 'an empty list of recipients', body: message({ to: [] }), fields: ['to'] },
  {
    case: 'a recipient that is no address',
    body: message({ to: ['ada@example.com', 'ada'] }),
    fields: ['to'],
  },
  { case: 'a recipient that is a number', body: message({ to: 42 }), fields: ['to'] },
  {
    case: `more than ${String(EMAIL_LIMITS.recipients)} recipients in to, cc and bcc together`,
    body: message({ to: addresses(20), cc: addresses(20, 'cc.example'), bcc: addresses(11, 'bcc.example') }),
    fields: ['to'],
  },
  {
    case: `more than ${String(EMAIL_LIMITS.replyTo)} reply_to addresses`,
    body: message({ reply_to: addresses(EMAIL_LIMITS.replyTo + 1) }),
    fields: ['reply_to'],
  },
  {
    case: 'a display name with quotes in it',
    body: message({ to: 'Ada "The" <a@example.com>' }),
    fields: ['to'],
  },
  { case: 'no html and no text', body: message({ text: undefined }), fields: ['text'] },
  { case: 'an html body that is not a string', body: message({ html: ['<p>'] }), fields: ['html'] },
  {
    case: `an html body over ${String(EMAIL_LIMITS.body)} characters`,
    body: message({ html: 'x'.repeat(EMAIL_LIMITS.body + 1) }),
    fields: ['html'],
  },
  {
    case: `a text body over ${String(EMAIL_LIMITS.body)} characters`,
    body: message({ text: 'x'.repeat(EMAIL_LIMITS.body + 1) }),
    fields: ['text'],
  },
  { case: 'no subject', body: message({ subject: undefined }), fields: ['subject'] },
  { case: 'an empty subject', body: message({ subject: '' }), fields: ['subject'] },
  {
    case: `a subject over ${String(EMAIL_LIMITS.subject)} characters`,
    body: message({ subject: 's'.repeat(EMAIL_LIMITS.subject + 1) }),
    fields: ['subject'],
  },
  {
    case: 'a subject with a tab-less control character',
    body: message({ subject: 'Hi\u0007' }),
    fields: ['subject'],
  },
  {
    case: 'a header that is no X- header',
    body: message({ headers: { Bcc: 'x@example.com' } }),
    fields: ['headers.Bcc'],
  },
  {
    case: 'the reserved X-Brand-Context-ID header',
    body: message({ headers: { 'X-Brand-Context-ID': 'em_mine' } }),
    fields: ['headers.X-Brand-Context-ID'],
  },
  {
    case: 'the reserved header in another case',
    body: message({ headers: { 'X-BRAND-CONTEXT-ID': 'em_mine' } }),
    fields: ['headers.X-BRAND-CONTEXT-ID'],
  },
  {
    case: `more than ${String(EMAIL_LIMITS.headers)} headers`,
    body: message({
      headers: Object.fromEntries(
        addresses(EMAIL_LIMITS.headers + 1).map((_, index) => [`X-H${String(index)}`, 'v']),
      ),
    }),
    fields: ['headers'],
  },
  {
    case: `a header value over ${String(EMAIL_LIMITS.headerValue)} characters`,
    body: message({ headers: { 'X-Order': 'v'.repeat(EMAIL_LIMITS.headerValue + 1) } }),
    fields: ['headers.X-Order'],
  },
  {
    case: 'a tag name with a space',
    body: message({ tags: { 'order id': '1' } }),
    fields: ['tags.order id'],
  },
  {
    case: `more than ${String(EMAIL_LIMITS.tags)} tags`,
    body: message({
      tags: Object.fromEntries(
        addresses(EMAIL_LIMITS.tags + 1).map((_, index) => [`t${String(index)}`, 'v']),
      ),
    }),
    fields: ['tags'],
  },
  {
    case: `a tag value over ${String(EMAIL_LIMITS.tagValue)} characters`,
    body: message({ tags: { order: 'v'.repeat(EMAIL_LIMITS.tagValue + 1) } }),
    fields: ['tags.order'],
  },
  { case: 'a tag value that is a number', body: message({ tags: { order: 1042 } }), fields: ['tags.order'] },
  { case: 'an unknown field', body: message({ attachments: [] }), fields: ['attachments'] },
  { case: 'a body that is an array', body: [message()], fields: [''] },
];

/**
 * Characters no single line may hold besides CR, LF and the C0 controls: C1 controls (NEL among them) and
 * Unicode's line and paragraph separators, which mail clients may break a header at.
 */
const NOT_ONE_LINE = [
  ['a C1 control (U+0080)', '\u0080', /control characters/],
  ['NEL (U+0085)', '\u0085', /control characters/],
  ['a C1 control (U+009F)', '\u009f', /control characters/],
  ['a line separator (U+2028)', '\u2028', /line breaks/],
  ['a paragraph separator (U+2029)', '\u2029', /line breaks/],
] as const;

/** Each single-line field of a message: where it is, the body with `char` in it, and the field named. */
const SINGLE_LINE_FIELDS: [
  where: string,
  fields: (char: string) => Record<string, unknown>,
  field: (char: string) => string,
][] = [
  ['the subject', (c) => ({ subject: `Receipt${c}1024` }), () => 'subject'],
  ['the from display name', (c) => ({ from: `Acme${c}Coffee <hello@acme.example>` }), () => 'from'],
  ['a to display name', (c) => ({ to: `Ada${c}Lovelace <ada@example.com>` }), () => 'to'],
  ['a cc display name', (c) => ({ cc: [`Bob${c}Smith <bob@example.com>`] }), () => 'cc'],
  ['a bcc display name', (c) => ({ bcc: `Cy${c}Young <cy@example.com>` }), () => 'bcc'],
  ['a reply_to display name', (c) => ({ reply_to: `Help${c}desk <help@acme.example>` }), () => 'reply_to'],
  ['a header value', (c) => ({ headers: { 'X-Order': `10${c}24` } }), () => 'headers.X-Order'],
  ['a header name', (c) => ({ headers: { [`X-Or${c}der`]: '1024' } }), (c) => `headers.X-Or${c}der`],
  ['a tag value', (c) => ({ tags: { order: `10${c}24` } }), () => 'tags.order'],
  ['a tag name', (c) => ({ tags: { [`or${c}der`]: '1024' } }), (c) => `tags.or${c}der`],
];

function expectFields(response: LightMyRequestResponse, fields: string[]): void {
  expect(outcome(response)).toBe('400 invalid_request');
  const problem = problemOf(response);
  expect([...new Set((problem.errors ?? []).map((issue) => issue.field))].sort()).toEqual([...fields].sort());
  for (const issue of problem.errors ?? []) expect(issue.message).not.toBe('');
}

describeEachBackend('Transactional email API: errors', (backend) => {
  const fixture = useFixture(backend, { extend: emailKeys });

  describe('the message', () => {
    for (const invalid of INVALID) {
      it(`refuses ${invalid.case} with 400 naming ${invalid.fields.join(', ') || 'the body'}, and queues nothing`, async () => {
        const f = fixture();
        const response = await unchanged(f, () => emailApi(f, f.emailKey).send(invalid.body));
        expectFields(response, invalid.fields);
      });
    }

    for (const [where, fields, field] of SINGLE_LINE_FIELDS) {
      it(`refuses C1 controls and line or paragraph separators in ${where} with 400 naming it, and queues nothing`, async () => {
        const f = fixture();
        for (const [what, char, said] of NOT_ONE_LINE) {
          const response = await unchanged(f, () => emailApi(f, f.emailKey).send(message(fields(char))));
          expectFields(response, [field(char)]);
          // Names are refused by their format (X- letters, digits and -); values say what is in them.
          if (!where.endsWith('name') || where.endsWith('display name')) {
            expect(problemOf(response).errors?.[0]?.message, what).toMatch(said);
          }
        }
      });
    }

    it('says a missing from, to and subject are required', async () => {
      const f = fixture();
      const response = await unchanged(f, () =>
        emailApi(f, f.emailKey).send({ text: 'Thank you for your order.' }),
      );
      expect(problemOf(response).errors).toEqual([
        { field: 'from', message: 'is required' },
        { field: 'to', message: 'is required' },
        { field: 'subject', message: 'is required' },
      ]);
    });

    it(`takes exactly ${String(EMAIL_LIMITS.recipients)} recipients, and bodies and a subject at their limits`, async () => {
      const f = fixture();
      const response = await emailApi(f, f.emailKey).send(
        message({
          to: addresses(30),
          cc: addresses(10, 'cc.example'),
          bcc: addresses(10, 'bcc.example'),
          subject: 's'.repeat(EMAIL_LIMITS.subject),
          html: 'h'.repeat(EMAIL_LIMITS.body),
          text: 't'.repeat(EMAIL_LIMITS.body),
        }),
      );
      expect(response.statusCode).toBe(202);
    });

    it(`refuses a request over ${String(EMAIL_REQUEST_LIMIT / 1024 / 1024)} MiB with 413 payload_too_large, and queues nothing`, async () => {
      const f = fixture();
      const body = JSON.stringify(message({ html: 'x'.repeat(EMAIL_REQUEST_LIMIT) }));
      const response = await refused(
        f,
        () => emailApi(f, f.emailKey).send(undefined, { rawBody: body }),
        '413 payload_too_large',
      );
      expect(problemOf(response).resolution).toContain('/email/v1/messages');
    });

    it('refuses a body that is not JSON with 400, and one not sent as JSON with 415', async () => {
      const f = fixture();
      await expectNonJsonRefused(f, f.emailKey, 'POST', EMAIL_MESSAGES_URL);
    });
  });

  describe('senders', () => {
    for (const [why, from] of [
      ['an address of another domain', 'hello@elsewhere.example'],
      ['an address of a subdomain of an allowed domain', 'hello@mail.acme.example'],
      ['an address whose domain only ends like an allowed one', 'hello@notacme.example'],
      ["the other workspace's domain", 'hello@other.example'],
    ] as const) {
      it(`refuses ${why} (${from}) with 422 sender_not_allowed, and queues nothing`, async () => {
        const f = fixture();
        const response = await refused(
          f,
          () => emailApi(f, f.emailKey).send(message({ from: `Acme <${from}>` })),
          '422 sender_not_allowed',
        );
        expect(problemOf(response).detail).toBe(`${from} is not an allowed sender of this workspace.`);
      });
    }
  });

  describe('Idempotency-Key', () => {
    for (const [why, key] of [
      ['empty', ''],
      [`over ${String(EMAIL_LIMITS.idempotencyKey)} characters`, 'k'.repeat(EMAIL_LIMITS.idempotencyKey + 1)],
      ['with a tab', 'order\t1'],
      ['with a character that is not ASCII', 'commande-é'],
    ] as const) {
      it(`refuses a key ${why} with 400 naming the header once, and queues nothing`, async () => {
        const f = fixture();
        const response = await unchanged(f, () =>
          emailApi(f, f.emailKey).send(message(), { headers: { 'idempotency-key': key } }),
        );
        expectFields(response, ['idempotency-key']);
        expect(problemOf(response).errors).toHaveLength(1);
      });
    }

    it(`takes a key of ${String(EMAIL_LIMITS.idempotencyKey)} printable characters`, async () => {
      const f = fixture();
      const key = `${'a !~'.repeat(63)}end`;
      const response = await emailApi(f, f.emailKey).send(message(), { headers: { 'idempotency-key': key } });
      expect(response.statusCode).toBe(202);
    });

    it('refuses the key of an earlier request with another body: 422 idempotency_key_reused, and queues nothing', async () => {
      const f = fixture();
      const headers = { 'idempotency-key': 'receipt-7' };
      await emailApi(f, f.emailKey).send(message(), { headers });
      const response = await refused(
        f,
        () => emailApi(f, f.emailKey).send(message({ subject: 'Another receipt' }), { headers }),
        '422 idempotency_key_reused',
      );
      expect(problemOf(response).detail).toContain('"receipt-7"');
    });
  });

  describe('reading', () => {
    it('answers 404 email_message_not_found for an id the workspace has not sent', async () => {
      const f = fixture();
      const response = await emailApi(f, f.emailKey).get('em_none');
      expect(outcome(response)).toBe('404 email_message_not_found');
      expect(problemOf(response).detail).toBe('This workspace has no message em_none.');
    });

    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=many', 'limit'],
      ['?status=delivered', 'status'],
      ['?cursor=nope', 'cursor'],
      ['?page=2', 'page'],
    ] as const) {
      it(`refuses a listing with ${query} with 400 naming ${field}`, async () => {
        const f = fixture();
        expectFields(await emailApi(f, f.emailKey).list(query), [field]);
      });
    }

    it('refuses a cursor that names no position of the listing', async () => {
      const f = fixture();
      const { id } = await sendEmail(f, f.emailKey);
      const forged = Buffer.from(JSON.stringify(['yesterday', id])).toString('base64url');
      expectFields(await emailApi(f, f.emailKey).list(`?cursor=${forged}`), ['cursor']);
    });

    it('refuses a NUL in the message id with 400 rather than asking the database', async () => {
      const f = fixture();
      const response = await emailApi(f, f.emailKey).get('em_%00');
      expect(outcome(response)).toBe('400 invalid_request');
    });
  });
});
