import { describe, expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { problemOf, useFixture } from '#test/support/http-fixture.js';
import { MAX_JSON_DEPTH } from '../core/inputs.js';

/*
 * The read operation's usual body is parsed and accepted on a quick path (src/http/request-input.ts); these
 * bodies must still get the full path's answers.
 */
describeEachBackend('JSON bodies off the quick path', (backend) => {
  const fixture = useFixture(backend);

  describe('the read operation', () => {
    it('reads the brand for a body whose field names are spelled with escapes, as for the plain body', async () => {
      const { app, workspaceId, brandKey: key } = fixture();
      const plain = await readContext(app, workspaceId, { key });
      const rawBody = `{"\\u0061ction": "context", "workspace_\\u0069d": "${workspaceId}"}`;
      const escaped = await readContext(app, workspaceId, { key, rawBody });
      expect(escaped.statusCode).toBe(200);
      expect(escaped.body).toBe(plain.body);
    });

    it.each([
      ['__proto__ spelled with escapes', '{"\\u005f_proto__": {"admin": true}, "action": "context"}'],
      ['constructor.prototype', '{"constructor": {"prototype": {"admin": true}}, "action": "context"}'],
    ])('refuses a body with %s with invalid_json', async (_label, rawBody) => {
      const { app, workspaceId, brandKey: key } = fixture();
      const response = await readContext(app, workspaceId, { key, rawBody });
      expect(response.statusCode).toBe(400);
      expect(problemOf(response).code).toBe('invalid_json');
    });

    it(`refuses a short body nested deeper than ${String(MAX_JSON_DEPTH)} levels with invalid_request`, async () => {
      const { app, workspaceId, brandKey: key } = fixture();
      const depth = MAX_JSON_DEPTH + 1;
      const rawBody = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const response = await readContext(app, workspaceId, { key, rawBody });
      expect(response.statusCode).toBe(400);
      expect(problemOf(response).code).toBe('invalid_request');
    });
  });
});
