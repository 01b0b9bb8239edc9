import { useCallback, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, url } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ManagersOnly } from '../components/ManagersOnly';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { formatDateTime } from '../format';
import { useNotice } from '../notice';
import type { DeliveryStatus, Webhook } from '../../../src/contract/webhooks';
import { useLiveLog } from '../useLiveLog';
import { useResource } from '../useResource';
import { useSubmit } from '../useSubmit';
import { DeliveryLog } from '../webhooks/DeliveryLog';
import { EndpointDialog } from '../webhooks/EndpointDialog';
import { EVENT_GROUPS, isAllEvents } from '../webhooks/events';
import { SecretSection } from '../webhooks/SecretSection';
import { VerifySignature } from '../webhooks/VerifySignature';
import { WebhookStatus } from '../webhooks/WebhookStatus';
import { MANAGERS_ONLY } from './Webhooks';

/** Settings → Webhooks → one endpoint: its settings, its secret, and its delivery log. */
export function WebhookEndpoint() {
  const workspace = useWorkspace();
  const { webhookId = '' } = useParams();
  const listPath = `/w/${encodeURIComponent(workspace.id)}/settings/webhooks`;
  if (!canManage(workspace))
    return (
      <>
        <BackLink to={listPath} />
        <ManagersOnly title="Webhook endpoint" eyebrow="Settings" notice={MANAGERS_ONLY} />
      </>
    );
  return <Endpoint workspaceId={workspace.id} webhookId={webhookId} listPath={listPath} />;
}

function BackLink({ to }: { to: string }) {
  return (
    <p className="back-link">
      <Link to={to}>All webhook endpoints</Link>
    </p>
  );
}

interface EndpointProps {
  workspaceId: string;
  webhookId: string;
  listPath: string;
}

function Endpoint({ workspaceId, webhookId, listPath }: EndpointProps) {
  const ids = { id: workspaceId, webhook_id: webhookId };
  const path = url('/api/v1/workspaces/{id}/webhooks/{webhook_id}', ids);
  const endpoint = useResource(path);
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const log = useLiveLog(
    url('/api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries', ids),
    status === '' ? undefined : status,
  );
  const [notice, showNotice] = useNotice();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const action = useSubmit();
  const navigate = useNavigate();
  const { update, reload } = endpoint;
  const { refresh } = log;

  const refreshAll = useCallback(() => {
    refresh();
    reload();
  }, [refresh, reload]);

  if (endpoint.data === undefined)
    return (
      <>
        <BackLink to={listPath} />
        <PageHeader
          title={endpoint.error === undefined ? 'Loading endpoint…' : 'Endpoint not available'}
          eyebrow="Settings · Webhooks"
        />
        <ProblemAlert error={endpoint.error} />
      </>
    );
  const webhook = endpoint.data;

  function setEnabled(enabled: boolean) {
    showNotice(null);
    action.run(
      () => api.patch(path, { enabled }),
      (updated) => {
        update(() => updated);
        showNotice(
          enabled ? 'Endpoint enabled' : 'Endpoint disabled: nothing is sent to it until it is enabled again',
        );
      },
    );
  }

  function sendTest() {
    showNotice(null);
    action.run(
      () => api.post(url('/api/v1/workspaces/{id}/webhooks/{webhook_id}/test', ids)),
      (queued) => {
        showNotice(`Test event queued: ${queued.event_id}`);
        refresh();
      },
    );
  }

  return (
    <div className="endpoint-page">
      <BackLink to={listPath} />
      <PageHeader title={webhook.url} eyebrow="Settings · Webhooks">
        {webhook.description !== null && <p className="lead">{webhook.description}</p>}
        <p className="meta-row">
          <WebhookStatus webhook={webhook} />
          <span className="muted">
            Added <Time iso={webhook.created_at} />
          </span>
        </p>
      </PageHeader>
      <div className="button-row endpoint-actions">
        <button
          type="button"
          className="button button-primary"
          disabled={action.pending || !webhook.enabled}
          onClick={sendTest}
        >
          Send test event
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            setEditing(true);
          }}
        >
          Edit
        </button>
        <button
          type="button"
          className="button"
          disabled={action.pending}
          onClick={() => {
            setEnabled(!webhook.enabled);
          }}
        >
          {webhook.enabled ? 'Disable' : 'Enable'}
        </button>
        <button
          type="button"
          className="button button-danger-quiet"
          onClick={() => {
            setDeleting(true);
          }}
        >
          Delete
        </button>
      </div>
      <StatusMessage message={notice} />
      <ProblemAlert error={action.error} />
      <StatusCallout webhook={webhook} />

      <section className="section">
        <h2>Events</h2>
        {isAllEvents(webhook.events) ? (
          <p>All events, including ones added later.</p>
        ) : (
          <ul className="event-list">
            {EVENT_GROUPS.flatMap((group) => group.events)
              .filter((event) => webhook.events.includes(event))
              .map((event) => (
                <li key={event}>
                  <code>{event}</code>
                </li>
              ))}
          </ul>
        )}
      </section>

      <SecretSection
        workspaceId={workspaceId}
        webhookId={webhook.id}
        onRotated={(secret) => {
          if (secret.previous_secret_expires_at !== null)
            showNotice(
              `Secret rotated: the previous one keeps signing until ${formatDateTime(secret.previous_secret_expires_at)}`,
            );
        }}
      />

      <DeliveryLog
        workspaceId={workspaceId}
        webhookId={webhook.id}
        endpointEnabled={webhook.enabled}
        log={log}
        status={status}
        onStatusChange={setStatus}
        onRefresh={refreshAll}
        onNotice={showNotice}
      />

      <VerifySignature />

      {editing && (
        <EndpointDialog
          workspaceId={workspaceId}
          editing={webhook}
          onCancel={() => {
            setEditing(false);
          }}
          onDone={(updated) => {
            setEditing(false);
            update(() => updated);
            showNotice('Endpoint saved');
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete this endpoint?"
          explanation={
            <>
              <code className="wrap-anywhere">{webhook.url}</code> receives nothing more from this workspace,
              and its delivery log goes with it. This cannot be undone.
            </>
          }
          confirmLabel="Delete endpoint"
          danger
          action={() => api.delete(path)}
          onCancel={() => {
            setDeleting(false);
          }}
          onDone={() => {
            void navigate(listPath);
          }}
        />
      )}
    </div>
  );
}

/** Why nothing is being delivered, or why deliveries may soon stop. */
function StatusCallout({ webhook }: { webhook: Webhook }) {
  if (webhook.disabled_reason === 'failing')
    return (
      <p className="callout callout-warning">
        The service disabled this endpoint: every delivery to it failed for 5 days. Fix the receiver, send a
        test event once it is enabled again, and retry the deliveries it missed.
      </p>
    );
  if (!webhook.enabled)
    return (
      <p className="callout">Disabled: no events are sent to this endpoint until you enable it again.</p>
    );
  if (webhook.failing_since !== null)
    return (
      <p className="callout callout-warning">
        Deliveries have failed since {formatDateTime(webhook.failing_since)}. If they keep failing for 5 days,
        the endpoint is disabled.
      </p>
    );
  return null;
}
