import type { ReactNode } from 'react';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import type { Webhook } from '../../../src/contract/webhooks';

/**
 * "Enabled" or "Disabled", and since when deliveries have been failing: the service disables an endpoint
 * whose every delivery failed for 5 days (disabled_reason "failing").
 */
export function WebhookStatus({ webhook }: { webhook: Webhook }) {
  let note: ReactNode = null;
  if (webhook.failing_since !== null)
    note = (
      <>
        failing since <Time iso={webhook.failing_since} withTime />
      </>
    );
  else if (webhook.disabled_reason === 'failing') note = 'after 5 days of failed deliveries';
  return (
    <span className="status-stack">
      <StatusBadge status={webhook.enabled ? 'enabled' : 'disabled'} />
      {note !== null && <span className="status-note">{note}</span>}
    </span>
  );
}
