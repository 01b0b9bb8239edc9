import { useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, url } from '../api';
import { AuthCard } from '../components/AuthCard';
import { SelectField } from '../components/fields';
import { ProblemAlert } from '../components/ProblemAlert';
import { StatusMessage } from '../components/StatusMessage';
import { scopeDescription, scopeLabel } from '../oauthScopes';
import { useSignedIn } from '../session';
import {
  AUTHORIZATION_PARAMETERS,
  type AuthorizationParameters,
  type OAuthAuthorization,
  type OAuthDecision,
} from '../../../src/contract/oauth-consent';
import { useResource } from '../useResource';
import { useSubmit } from '../useSubmit';

/** The parameters of `/oauth/authorize` that the decision passes back, as this page received them. */
function authorizeRequest(params: URLSearchParams): AuthorizationParameters {
  const request: AuthorizationParameters = {};
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = params.get(name);
    if (value !== null) request[name] = value;
  }
  return request;
}

/**
 * The consent page `/oauth/authorize` sends the browser to (docs/connect-ai-client.md "Connect an AI
 * client"): which app asks, where the browser goes after, the workspace and the scopes to grant, Allow or
 * Deny. The service checked the request before sending anyone here and checks it again on the decision; a
 * request it refuses is shown, never followed.
 */
export function Connect() {
  const [params] = useSearchParams();
  const authorization = useResource(
    url('/api/v1/oauth/authorization', {}, Object.fromEntries(params.entries())),
  );

  if (authorization.error !== undefined)
    return (
      <AuthCard title="This app cannot connect">
        <ProblemAlert error={authorization.error} />
        <p>
          Nothing was shared with the app. <Link to="/">Go to Brand Context</Link>
        </p>
      </AuthCard>
    );
  if (authorization.data === undefined)
    return (
      <AuthCard title="Connect an app">
        <p className="muted">Loading…</p>
      </AuthCard>
    );
  return <Consent authorization={authorization.data} request={authorizeRequest(params)} />;
}

interface ConsentProps {
  authorization: OAuthAuthorization;
  request: AuthorizationParameters;
}

function Consent({ authorization, request }: ConsentProps) {
  const { user } = useSignedIn();
  const { client, workspaces } = authorization;
  const [workspaceId, setWorkspaceId] = useState(workspaces[0]?.id ?? '');
  const workspace = workspaces.find((candidate) => candidate.id === workspaceId);
  const grantable = workspace?.scopes ?? [];
  // Every scope the role may grant starts ticked (the app asked for them); each workspace keeps its own ticks.
  const [chosen, setChosen] = useState<Record<string, readonly string[]>>({});
  const scopes = chosen[workspaceId] ?? grantable;
  const refused = authorization.scopes.filter((scope) => !grantable.includes(scope));
  const { pending, error, run } = useSubmit();
  const [leaving, setLeaving] = useState(false);
  const scopesId = useId();

  function decide(decision: OAuthDecision['decision']) {
    run(
      () =>
        api.post(url('/api/v1/oauth/authorization'), {
          ...request,
          workspace_id: workspaceId,
          scopes: decision === 'allow' ? [...scopes] : [],
          decision,
        }),
      ({ redirect_to }) => {
        setLeaving(true);
        // The service built this address from the client's registered redirect URI, never from the page.
        window.location.assign(redirect_to);
      },
    );
  }

  function toggle(scope: string, on: boolean) {
    const next = new Set(scopes);
    if (on) next.add(scope);
    else next.delete(scope);
    setChosen({ ...chosen, [workspaceId]: grantable.filter((candidate) => next.has(candidate)) });
  }

  const busy = pending || leaving;
  return (
    <AuthCard title={`${client.name} wants to access Brand Context`}>
      <p className="consent-redirect">
        You will be sent to <strong>{client.redirect_host}</strong>
      </p>
      {client.source === 'metadata_document' && (
        <p className="muted consent-client-id">
          The app describes itself at <code>{client.id}</code>.
        </p>
      )}
      <p className="muted">
        Signed in as <strong>{user.email}</strong>. The app will act as you, with no more than your role
        allows.
      </p>
      <ProblemAlert error={error} />
      {workspace === undefined ? (
        <p className="callout">
          You are not a member of any workspace yet: ask a workspace owner to add you, then connect again.
        </p>
      ) : (
        <div className="stack">
          {workspaces.length > 1 ? (
            <SelectField
              label="Workspace"
              value={workspaceId}
              options={workspaces.map((candidate) => ({
                value: candidate.id,
                label: `${candidate.name} (${candidate.role})`,
              }))}
              onChange={setWorkspaceId}
            />
          ) : (
            <p>
              Workspace: <strong>{workspace.name}</strong>
            </p>
          )}
          <fieldset className="event-picker consent-scopes">
            <legend>{`Allow ${client.name} to`}</legend>
            {grantable.map((scope) => (
              <div key={scope} className="consent-scope">
                <label className="choice">
                  <input
                    type="checkbox"
                    checked={scopes.includes(scope)}
                    disabled={busy}
                    aria-describedby={`${scopesId}-${scope}`}
                    onChange={(change) => {
                      toggle(scope, change.target.checked);
                    }}
                  />
                  {scopeLabel(scope)}
                </label>
                <p id={`${scopesId}-${scope}`} className="field-hint consent-scope-hint">
                  {scopeDescription(scope)} <code>{scope}</code>
                </p>
              </div>
            ))}
            {grantable.length === 0 && (
              <p className="field-hint">Nothing it asks for can be granted in this workspace.</p>
            )}
          </fieldset>
          {refused.length > 0 && (
            <p className="callout">
              {`As ${workspace.role === 'admin' ? 'an' : 'a'} ${workspace.role} of ${workspace.name} you cannot grant: `}
              {refused.map(scopeLabel).join(', ')}.
            </p>
          )}
          {grantable.length > 0 && scopes.length === 0 && (
            <p className="field-hint">Tick at least one to allow, or deny.</p>
          )}
        </div>
      )}
      <div className="button-row consent-actions">
        <button
          type="button"
          className="button"
          disabled={busy}
          onClick={() => {
            decide('deny');
          }}
        >
          Deny
        </button>
        <button
          type="button"
          className="button button-primary"
          disabled={busy || workspace === undefined || scopes.length === 0}
          onClick={() => {
            decide('allow');
          }}
        >
          Allow
        </button>
      </div>
      <StatusMessage message={leaving ? `Sending you to ${client.redirect_host}…` : null} />
    </AuthCard>
  );
}
