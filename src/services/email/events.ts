import type { EmailStatus } from '../../contract/email.js';
import type { EmailMessageRecord, Repositories } from '../../store/store.js';
import { type EventRepositories, publishEvent } from '../webhooks/events.js';

/**
 * Publishes `email.<status>` for a recipient of a message sent through /email/v1 (docs/webhooks.md "Webhooks",
 * events), in the transaction that records the status. Account email (invites, resets) is the service's
 * own business and publishes nothing.
 */
export async function publishEmailEvent(
  store: Pick<Repositories, EventRepositories>,
  at: string,
  message: Pick<EmailMessageRecord, 'id' | 'workspaceId' | 'source' | 'tags'>,
  recipient: string,
  status: EmailStatus,
  detail: string | null,
): Promise<void> {
  if (message.source !== 'api' || message.workspaceId === null) return;
  await publishEvent(store, at, {
    workspaceId: message.workspaceId,
    type: `email.${status}`,
    data: { message_id: message.id, recipient, status, detail, tags: message.tags },
  });
}
