import { url } from '../api';
import { CodeBlock } from '../components/CodeBlock';
import { DataTable } from '../components/DataTable';
import { DetailDialog } from '../components/DetailDialog';
import { Facts } from '../components/Facts';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import type { Delivery } from '../../../src/contract/webhooks';
import { useResource } from '../useResource';
import { durationText } from './format';

/** The body as sent, indented for reading (it is JSON; anything else is shown as it is). */
function readable(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

interface DeliveryDialogProps {
  workspaceId: string;
  delivery: Delivery;
  onClose: () => void;
}

/** One delivery: the payload every attempt sent, and each attempt with its answer (GET …/deliveries/{id}). */
export function DeliveryDialog({ workspaceId, delivery, onClose }: DeliveryDialogProps) {
  const detail = useResource(
    url('/api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}', {
      id: workspaceId,
      webhook_id: delivery.webhook_id,
      delivery_id: delivery.id,
    }),
  );
  const shown = detail.data ?? delivery;

  return (
    <DetailDialog
      title={`Delivery of ${delivery.event_type}`}
      detail={detail}
      summary={
        <Facts
          facts={[
            ['Status', <StatusBadge status={shown.status} />],
            ['Event ID', <code>{shown.event_id}</code>],
            ['Created', <Time iso={shown.created_at} withTime />],
            [
              'Next attempt',
              shown.next_attempt_at === null ? 'None' : <Time iso={shown.next_attempt_at} withTime />,
            ],
          ]}
        />
      }
      loadingText="Loading the delivery…"
      onClose={onClose}
    >
      {(data) => (
        <>
          <h3>Attempts</h3>
          <DataTable
            name="Attempts"
            columns={[
              { header: 'Attempt', rowHeader: true, cell: (attempt) => `#${String(attempt.attempt)}` },
              { header: 'When', cell: (attempt) => <Time iso={attempt.attempted_at} withTime /> },
              {
                header: 'Response',
                cell: (attempt) => (attempt.response_status === null ? 'None' : attempt.response_status),
              },
              { header: 'Duration', cell: (attempt) => durationText(attempt.duration_ms) },
              {
                header: 'Error',
                className: 'cell-error',
                cell: (attempt) => attempt.error ?? <span className="muted">None</span>,
              },
            ]}
            rows={data.history}
            rowKey={(attempt) => String(attempt.attempt)}
            emptyText="No attempt yet: it is queued."
          />
          <h3>Payload</h3>
          <CodeBlock label="Payload">{readable(data.payload)}</CodeBlock>
        </>
      )}
    </DetailDialog>
  );
}
