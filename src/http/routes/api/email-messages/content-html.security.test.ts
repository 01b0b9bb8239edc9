import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { capturedEmail, emailKeys, emailMessagesUrl } from '#test/support/fixtures/email.js';
import { call, type Fixture, outcome, unchanged, useFixture } from '#test/support/http-fixture.js';

const SECRET_LINK = 'https://acme.example/reset#captured-one-time-link';

/** A captured message of the fixture's workspace, whose HTML body holds a one-time link. */
function target(f: Fixture): Promise<string> {
  return capturedEmail(f, f.workspaceId, { html: `<a href="${SECRET_LINK}">Reset</a>` });
}

/** GET …/content.html of `id` under `workspaceId` with `credential`: refused, changing nothing, showing no HTML. */
async function refusedHtml(
  f: Fixture,
  credential: string | undefined,
  workspaceId: string,
  id: string,
): Promise<LightMyRequestResponse> {
  const response = await unchanged(f, () =>
    call(f, credential, 'GET', `${emailMessagesUrl(workspaceId)}/${id}/content.html`),
  );
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.body).not.toContain(SECRET_LINK);
  return response;
}

describeEachBackend('A captured email’s HTML body as a page: security', (backend) => {
  const fixture = useFixture(backend, { extend: emailKeys });

  it('answers 401 missing_token without credentials and 403 insufficient_role to a member', async () => {
    const f = fixture();
    const id = await target(f);
    expect(outcome(await refusedHtml(f, undefined, f.workspaceId, id))).toBe('401 missing_token');
    expect(outcome(await refusedHtml(f, f.member.token, f.workspaceId, id))).toBe('403 insufficient_role');
  });

  it('refuses every key: brand read keys, workspace API keys and transactional email keys', async () => {
    const f = fixture();
    const id = await target(f);
    for (const [key, refusal] of [
      [f.brandKey, '403 brand_key_not_allowed'],
      [f.apiKey, '403 api_key_not_allowed'],
      [f.emailKey, '403 email_key_not_allowed'],
      [f.otherEmailKey, '403 email_key_not_allowed'],
    ] as const)
      expect(outcome(await refusedHtml(f, key, f.workspaceId, id)), refusal).toBe(refusal);
  });

  it("answers 403 to another workspace's owner, and 404 when they name this workspace's message under their own", async () => {
    const f = fixture();
    const id = await target(f);
    expect(outcome(await refusedHtml(f, f.otherOwner.token, f.workspaceId, id))).toBe(
      '403 workspace_forbidden',
    );
    expect(outcome(await refusedHtml(f, f.otherOwner.token, f.otherWorkspaceId, id))).toBe(
      '404 email_message_not_found',
    );
  });
});
