import { useState } from 'react';
import { Link } from 'react-router';
import { url } from '../api';
import { Creator } from '../components/Creator';
import { DataTable } from '../components/DataTable';
import { ManagersOnly } from '../components/ManagersOnly';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { useNotice } from '../notice';
import { useSignedIn } from '../session';
import type { CreatedWebhook } from '../../../src/contract/webhooks';
import { useResource } from '../useResource';
import { EndpointDialog } from '../webhooks/EndpointDialog';
import { eventsSummary } from '../webhooks/events';
import { NewSecretDialog } from '../webhooks/NewSecretDialog';
import { VerifySignature } from '../webhooks/VerifySignature';
import { WebhookStatus } from '../webhooks/WebhookStatus';

/** What owners and admins are told this page is for; members are told who may use it. */
const LEAD =
  'Tell your own systems when keys, the brand, campaigns or members change, and what becomes of the email you send through the email API (email.sent, email.bounced, …): each event is POSTed, signed, to the endpoints you add here, and retried until it is received.';

export const MANAGERS_ONLY = 'Only owners and admins manage webhooks.';

/** The path of an endpoint's page in the console. */
export function endpointPagePath(workspaceId: string, webhookId: string): string {
  return `/w/${encodeURIComponent(workspaceId)}/settings/webhooks/${encodeURIComponent(webhookId)}`;
}

/** Settings → Webhooks: the workspace's endpoints, adding one, and how receivers verify deliveries. */
export function Webhooks() {
  const workspace = useWorkspace();
  if (!canManage(workspace))
    return <ManagersOnly title="Webhooks" eyebrow="Settings" lead={LEAD} notice={MANAGERS_ONLY} />;
  return <EndpointList workspaceId={workspace.id} />;
}

function EndpointList({ workspaceId }: { workspaceId: string }) {
  const list = useResource(url('/api/v1/workspaces/{id}/webhooks', { id: workspaceId }));
  const { user } = useSignedIn();
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [notice, showNotice] = useNotice();

  return (
    <>
      <PageHeader
        title="Webhooks"
        eyebrow="Settings"
        actions={
          <button
            type="button"
            className="button button-primary"
            onClick={() => {
              setAdding(true);
            }}
          >
            Add endpoint
          </button>
        }
      >
        <p className="lead">{LEAD}</p>
      </PageHeader>
      <StatusMessage message={notice} />
      <ProblemAlert error={list.error} />
      {list.data === undefined ? (
        list.loading && <p className="muted">Loading endpoints…</p>
      ) : (
        <DataTable
          name="Webhook endpoints"
          columns={[
            {
              header: 'Endpoint',
              rowHeader: true,
              className: 'cell-url',
              cell: (webhook) => (
                <>
                  <Link to={endpointPagePath(workspaceId, webhook.id)}>{webhook.url}</Link>
                  {webhook.description !== null && <span className="cell-detail">{webhook.description}</span>}
                </>
              ),
            },
            { header: 'Events', cell: (webhook) => eventsSummary(webhook.events) },
            { header: 'Status', cell: (webhook) => <WebhookStatus webhook={webhook} /> },
            { header: 'Created', cell: (webhook) => <Time iso={webhook.created_at} /> },
            {
              header: 'Created by',
              className: 'cell-email',
              // Null: made with the CLI (or by an account since deleted).
              cell: (webhook) => <Creator creator={webhook.creator} none="CLI" />,
            },
          ]}
          rows={list.data.webhooks}
          rowKey={(webhook) => webhook.id}
          emptyText="No endpoints yet. Add one to receive events."
        />
      )}
      <VerifySignature />
      {adding && (
        <EndpointDialog
          workspaceId={workspaceId}
          onCancel={() => {
            setAdding(false);
          }}
          onDone={(webhook) => {
            setAdding(false);
            setCreated(webhook);
            // The list shows endpoints without their secret.
            const { secret: _secret, ...shown } = webhook;
            const creator = { user_id: user.id, email: user.email, former_member: false };
            list.update(({ webhooks }) => ({ webhooks: [...webhooks, { ...shown, creator }] }));
            showNotice(`Endpoint added: ${webhook.url}`);
          }}
        />
      )}
      {created !== null && (
        <NewSecretDialog
          created={created}
          onDone={() => {
            setCreated(null);
          }}
        />
      )}
    </>
  );
}
