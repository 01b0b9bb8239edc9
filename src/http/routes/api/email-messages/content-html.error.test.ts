import { describe, expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import {
  capturedEmail,
  emailKeys,
  emailMessagesUrl,
  message,
  sendEmail,
} from '#test/support/fixtures/email.js';
import { call, type Fixture, outcome, problemOf, useFixture } from '#test/support/http-fixture.js';

function htmlOf(f: Fixture, id: string) {
  return call(f, f.owner.token, 'GET', `${emailMessagesUrl(f.workspaceId)}/${id}/content.html`);
}

describeEachBackend('A captured email’s HTML body as a page: errors', (backend) => {
  const fixture = useFixture(backend, { extend: emailKeys });

  describe('captured messages only', () => {
    it('answers 404 email_message_not_found for a message that was not captured, as problem+json, never its HTML', async () => {
      const f = fixture();
      const { id } = await sendEmail(f, f.emailKey, message({ html: '<p>Thank you for your order</p>' }));
      const response = await htmlOf(f, id);
      expect(outcome(response)).toBe('404 email_message_not_found');
      expect(problemOf(response).detail).toBe(
        `Message ${id} was not captured (it is queued): only captured messages can be read here.`,
      );
      expect(problemOf(response).resolution).toMatch(/^Only captured messages/);
      expect(response.body).not.toContain('Thank you for your order');
    });

    it('answers an unknown id alike, saying that there is no such message', async () => {
      const f = fixture();
      const response = await htmlOf(f, 'em_none');
      expect(outcome(response)).toBe('404 email_message_not_found');
      expect(problemOf(response).detail).toBe('This workspace has no message em_none.');
    });

    it('answers 404 for a captured message without an HTML body, saying where its text is read', async () => {
      const f = fixture();
      const id = await capturedEmail(f, f.workspaceId, { html: null, text: 'Plain only' });
      const response = await htmlOf(f, id);
      expect(outcome(response)).toBe('404 email_message_not_found');
      expect(problemOf(response).detail).toBe(`Captured message ${id} has no HTML body.`);
      expect(problemOf(response).resolution).toBe(
        'This captured message has no HTML body: read its text with GET …/content.',
      );
    });
  });
});
