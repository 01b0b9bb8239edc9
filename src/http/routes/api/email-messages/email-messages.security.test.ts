import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { describeEachBackend } from '../../../../../test/support/databases.js';
import { capturedEmail, emailKeys, emailMessagesUrl } from '../../../../../test/support/fixtures/email.js';
import {
  callEach,
  type Fixture,
  outcome,
  type RouteCall,
  unchanged,
  useFixture,
} from '../../../../../test/support/http-fixture.js';

const SECRET_LINK = 'https://acme.example/reset#captured-one-time-link';

/** The three routes of the message log of `workspaceId`, for the message `id`. */
function logRoutes(workspaceId: string, id: string): RouteCall[] {
  const url = emailMessagesUrl(workspaceId);
  return [
    { method: 'GET', url },
    { method: 'GET', url: `${url}/${id}` },
    { method: 'GET', url: `${url}/${id}/content` },
  ];
}

/** A captured message of the fixture's workspace, whose body holds a one-time link. */
function target(f: Fixture): Promise<string> {
  return capturedEmail(f, f.workspaceId, { text: `Reset: ${SECRET_LINK}`, html: null });
}

async function everyRoute(
  f: Fixture,
  credential: string | undefined,
  workspaceId: string,
  id: string,
): Promise<LightMyRequestResponse[]> {
  const responses = await unchanged(f, () => callEach(f, credential, logRoutes(workspaceId, id)));
  for (const response of responses) {
    expect(response.body).not.toContain(SECRET_LINK);
    expect(response.body).not.toContain('Welcome to Acme');
  }
  return responses;
}

describeEachBackend('Email message log: security', (backend) => {
  const fixture = useFixture(backend, { extend: emailKeys });

  it('answers 403 insufficient_role to a member on every route', async () => {
    const f = fixture();
    const id = await target(f);
    const responses = await everyRoute(f, f.member.token, f.workspaceId, id);
    expect(responses.map(outcome)).toEqual(Array(3).fill('403 insufficient_role'));
  });

  it('answers 401 missing_token without credentials', async () => {
    const f = fixture();
    const id = await target(f);
    const responses = await everyRoute(f, undefined, f.workspaceId, id);
    expect(responses.map(outcome)).toEqual(Array(3).fill('401 missing_token'));
  });

  it('refuses every key: brand read keys, workspace API keys and transactional email keys', async () => {
    const f = fixture();
    const id = await target(f);
    for (const [key, refusal] of [
      [f.brandKey, '403 brand_key_not_allowed'],
      [f.apiKey, '403 api_key_not_allowed'],
      [f.emailKey, '403 email_key_not_allowed'],
      [f.otherEmailKey, '403 email_key_not_allowed'],
    ] as const) {
      const responses = await everyRoute(f, key, f.workspaceId, id);
      expect(responses.map(outcome), refusal).toEqual(Array(3).fill(refusal));
    }
  });

  it("answers 403 workspace_forbidden to another workspace's owner on every route of this workspace", async () => {
    const f = fixture();
    const id = await target(f);
    const responses = await everyRoute(f, f.otherOwner.token, f.workspaceId, id);
    expect(responses.map(outcome)).toEqual(Array(3).fill('403 workspace_forbidden'));
  });

  it("answers 404 to another workspace's owner who names this workspace's message under their own", async () => {
    const f = fixture();
    const id = await target(f);
    const responses = await everyRoute(f, f.otherOwner.token, f.otherWorkspaceId, id);
    expect(responses.map(outcome)).toEqual([
      '200',
      '404 email_message_not_found',
      '404 email_message_not_found',
    ]);
    expect(responses[0]?.body).not.toContain(id);
  });
});
