import { it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { refused, useFixture } from '#test/support/http-fixture.js';
import {
  authorizationParams,
  decide,
  describeConsent,
  pkce,
  registerClient,
} from '#test/support/fixtures/oauth.js';

describeEachBackend('OAuth consent (/api/v1/oauth/authorization): errors', (backend) => {
  const fixture = useFixture(backend);

  it('answers 400 invalid_authorization_request to any request /oauth/authorize would not pass on', async () => {
    const f = fixture();
    const clientId = await registerClient(f);
    const { challenge } = pkce();
    for (const overrides of [
      { client_id: 'oc_unknown' },
      { redirect_uri: 'https://evil.example.com/cb' },
      { code_challenge: undefined },
      { code_challenge_method: 'plain' },
      { resource: 'https://other.example.com/mcp' },
      { scope: 'everything' },
      { response_type: 'token' },
    ]) {
      const params = authorizationParams(clientId, challenge, overrides);
      await refused(f, () => describeConsent(f, f.owner.token, params), '400 invalid_authorization_request');
      await refused(
        f,
        () => decide(f, f.owner.token, params, { workspace_id: f.workspaceId, scopes: ['brand:read'] }),
        '400 invalid_authorization_request',
      );
    }
  });

  it('refuses Allow with no scope, or a scope the app did not ask for, and grants nothing', async () => {
    const f = fixture();
    const params = authorizationParams(await registerClient(f), pkce().challenge, { scope: 'brand:read' });
    for (const scopes of [[], ['campaigns:write'], ['admin']]) {
      await refused(
        f,
        () => decide(f, f.owner.token, params, { workspace_id: f.workspaceId, scopes }),
        '400 invalid_authorization_request',
      );
    }
  });

  it('answers 400 invalid_request to a decision that is neither allow nor deny', async () => {
    const f = fixture();
    const params = authorizationParams(await registerClient(f), pkce().challenge);
    await refused(
      f,
      () => decide(f, f.owner.token, params, { workspace_id: f.workspaceId, decision: 'maybe' as 'allow' }),
      '400 invalid_request',
    );
  });
});
