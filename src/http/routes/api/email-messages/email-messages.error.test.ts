import { describe, expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { emailKeys, messageLogApi, sendEmail } from '#test/support/fixtures/email.js';
import { outcome, problemOf, useFixture } from '#test/support/http-fixture.js';

describeEachBackend('Email message log: errors', (backend) => {
  const fixture = useFixture(backend, { extend: emailKeys });

  describe('a message', () => {
    it('answers 404 email_message_not_found for an id the workspace has no message of', async () => {
      const f = fixture();
      const response = await messageLogApi(f, f.owner.token, f.workspaceId).get('em_none');
      expect(outcome(response)).toBe('404 email_message_not_found');
      expect(problemOf(response).detail).toBe('This workspace has no message em_none.');
    });
  });

  describe('the development mailbox', () => {
    it('answers 404 for the content of a message that was not captured, saying that it exists but only captured ones can be read', async () => {
      const f = fixture();
      const { id } = await sendEmail(f, f.emailKey);
      const response = await messageLogApi(f, f.owner.token, f.workspaceId).content(id);
      expect(outcome(response)).toBe('404 email_message_not_found');
      expect(problemOf(response).detail).toBe(
        `Message ${id} was not captured (it is queued): only captured messages can be read here.`,
      );
      expect(problemOf(response).resolution).toMatch(/^Only captured messages/);
      expect(response.body).not.toContain('Thank you for your order');
    });

    it('answers an unknown id with the same 404 and advice, saying that there is no such message', async () => {
      const f = fixture();
      const response = await messageLogApi(f, f.owner.token, f.workspaceId).content('em_none');
      expect(outcome(response)).toBe('404 email_message_not_found');
      expect(problemOf(response).detail).toBe('This workspace has no message em_none.');
      expect(problemOf(response).resolution).toMatch(/^Only captured messages/);
    });
  });

  describe('listing', () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?status=opened', 'status'],
      ['?cursor=%00', 'cursor'],
      ['?cursor=bm9wZQ', 'cursor'],
      ['?source=api', 'source'],
    ] as const) {
      it(`refuses ${query} with 400 naming ${field}`, async () => {
        const f = fixture();
        const response = await messageLogApi(f, f.owner.token, f.workspaceId).list(query);
        expect(outcome(response)).toBe('400 invalid_request');
        expect(problemOf(response).errors?.map((issue) => issue.field)).toContain(field);
      });
    }
  });
});
