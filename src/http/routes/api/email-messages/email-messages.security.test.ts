import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import {
  capturedEmail,
  emailKeys,
  emailMessagesUrl,
  refusedToEveryKey,
} from '#test/support/fixtures/email.js';
import {
  callEach,
  type Fixture,
  outcome,
  type RouteCall,
  unchanged,
  useFixture,
} from '#test/support/http-fixture.js';

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

/** The answers tell nothing of the message: not its subject, nor the link in its body. */
function expectNothingLeaked(responses: LightMyRequestResponse[]): void {
  for (const response of responses) {
    expect(response.body).not.toContain(SECRET_LINK);
    expect(response.body).not.toContain('Welcome to Acme');
  }
}

/** Calls every route of the log of `workspaceId` for the message `id`: no table changes, nothing leaks. */
async function everyRoute(
  f: Fixture,
  credential: string | undefined,
  workspaceId: string,
  id: string,
): Promise<LightMyRequestResponse[]> {
  const responses = await unchanged(f, () => callEach(f, credential, logRoutes(workspaceId, id)));
  expectNothingLeaked(responses);
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

  it('refuses every key, transactional email keys of this workspace and another included, and no credential', async () => {
    const f = fixture();
    const id = await target(f);
    for (const emailKey of [f.emailKey, f.otherEmailKey]) {
      const responses = await refusedToEveryKey(f, emailKey, logRoutes(f.workspaceId, id));
      expectNothingLeaked(responses);
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
