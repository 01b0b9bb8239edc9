import { useState } from 'react';
import { api, url } from '../api';
import { DataTable } from '../components/DataTable';
import { LoadMoreButton } from '../components/LoadMoreButton';
import { LogToolbar } from '../components/LogToolbar';
import { ProblemAlert } from '../components/ProblemAlert';
import { RowButton } from '../components/RowButton';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { type LiveLog, useRefreshWhile } from '../useLiveLog';
import { useSubmit } from '../useSubmit';
import { type Delivery, DELIVERY_STATUSES, type DeliveryStatus } from '../../../src/contract/webhooks';
import { plural } from '../format';
import { DeliveryDialog } from './DeliveryDialog';
import { durationText } from './format';

/** How often the log is loaded again while a delivery is about to be attempted. */
const POLL_MS = 2000;
/** A retry due within this is waited for on the page; later ones are picked up by Refresh. */
const WATCH_AHEAD_MS = 60_000;

/** A delivery about to be attempted: pending, or retrying within WATCH_AHEAD_MS. */
function awaitsAttempt(delivery: Delivery): boolean {
  if (delivery.status === 'pending') return true;
  return (
    delivery.status === 'retrying' &&
    delivery.next_attempt_at !== null &&
    Date.parse(delivery.next_attempt_at) - Date.now() < WATCH_AHEAD_MS
  );
}

interface DeliveryLogProps {
  workspaceId: string;
  webhookId: string;
  /** A disabled endpoint is sent nothing, so its deliveries cannot be retried (409 webhook_disabled). */
  endpointEnabled: boolean;
  log: LiveLog<Delivery>;
  /** The status shown ('' for all): the page holds it, so that its log loads the right list. */
  status: DeliveryStatus | '';
  onStatusChange: (status: DeliveryStatus | '') => void;
  /** Loads the log and the endpoint again: the endpoint's status follows its deliveries. */
  onRefresh: () => void;
  onNotice: (message: string) => void;
}

/** An endpoint's deliveries, newest first: each attempt's outcome, a retry, and the details of one. */
export function DeliveryLog({
  workspaceId,
  webhookId,
  endpointEnabled,
  log,
  status,
  onStatusChange,
  onRefresh,
  onNotice,
}: DeliveryLogProps) {
  const [viewing, setViewing] = useState<Delivery | null>(null);
  const retry = useSubmit();
  const { items } = log;

  // While a delivery is about to be attempted, its outcome is fetched as it comes.
  useRefreshWhile(items, awaitsAttempt, onRefresh, POLL_MS);

  function retryDelivery(delivery: Delivery) {
    retry.run(
      () =>
        api.post(
          url('/api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
            id: workspaceId,
            webhook_id: webhookId,
            delivery_id: delivery.id,
          }),
        ),
      () => {
        onNotice(`Retrying ${delivery.event_type} (${delivery.event_id})`);
        onRefresh();
      },
    );
  }

  return (
    <section className="section">
      <div className="section-header">
        <div>
          <h2>Deliveries</h2>
          <p className="section-description">
            Newest first. A failed attempt is retried on the service’s schedule (by default for about a day);
            Retry sends the same event (the same <code>webhook-id</code>) once more, now.
          </p>
        </div>
        <LogToolbar
          statuses={DELIVERY_STATUSES}
          status={status}
          onStatusChange={onStatusChange}
          onRefresh={onRefresh}
        />
      </div>
      <ProblemAlert error={log.error ?? retry.error} />
      {items === undefined ? (
        <p className="muted">Loading deliveries…</p>
      ) : (
        <DataTable
          name="Deliveries"
          columns={[
            {
              header: 'Event',
              rowHeader: true,
              cell: (delivery) => (
                <>
                  <code>{delivery.event_type}</code>
                  <span className="cell-detail">{delivery.event_id}</span>
                </>
              ),
            },
            {
              header: 'Status',
              cell: (delivery) => (
                // One element: on narrow screens each cell's children are laid out as a grid.
                <div>
                  <StatusBadge status={delivery.status} />
                  <span className="cell-detail">{plural(delivery.attempts, 'attempt')}</span>
                </div>
              ),
            },
            {
              header: 'Response',
              cell: (delivery) =>
                delivery.response_status === null ? (
                  <span className="muted">None</span>
                ) : (
                  <div>
                    {delivery.response_status}
                    {delivery.duration_ms !== null && (
                      <span className="cell-detail">{durationText(delivery.duration_ms)}</span>
                    )}
                  </div>
                ),
            },
            {
              header: 'Error',
              className: 'cell-error',
              cell: (delivery) => delivery.error ?? <span className="muted">None</span>,
            },
            { header: 'Created', cell: (delivery) => <Time iso={delivery.created_at} withTime /> },
            {
              header: 'Next attempt',
              cell: (delivery) =>
                delivery.next_attempt_at === null ? (
                  <span className="muted">None</span>
                ) : (
                  <Time iso={delivery.next_attempt_at} withTime />
                ),
            },
          ]}
          rows={items}
          rowKey={(delivery) => delivery.id}
          actions={(delivery) => {
            const target = `${delivery.event_type} ${delivery.event_id}`;
            return (
              <span className="row-buttons">
                <RowButton
                  action="Details"
                  target={target}
                  onClick={() => {
                    setViewing(delivery);
                  }}
                />
                {/* A pending delivery is about to be sent anyway. */}
                {delivery.status !== 'pending' && (
                  <RowButton
                    action="Retry"
                    target={target}
                    disabled={retry.pending || !endpointEnabled}
                    onClick={() => {
                      retryDelivery(delivery);
                    }}
                  />
                )}
              </span>
            );
          }}
          emptyText={
            status === ''
              ? 'No deliveries yet. Send a test event, or wait for a change in this workspace.'
              : `No ${status} deliveries.`
          }
        />
      )}
      {log.loadMore !== undefined && <LoadMoreButton onClick={log.loadMore} pending={log.loadingMore} />}
      {viewing !== null && (
        <DeliveryDialog
          workspaceId={workspaceId}
          delivery={viewing}
          onClose={() => {
            setViewing(null);
          }}
        />
      )}
    </section>
  );
}
