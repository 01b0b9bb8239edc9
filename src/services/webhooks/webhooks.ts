import {
  type CreatedWebhook,
  type Delivery,
  type DeliveryDetail,
  type DeliveryPage,
  type DeliveryStatus,
  type NewWebhook,
  type QueuedDelivery,
  type Webhook,
  type WebhookChanges,
  type WebhookSecret,
} from '../../contract/webhooks.js';
import { newId } from '../../core/base62.js';
import { isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { DEFAULT_WEBHOOK_ENDPOINT_LIMIT } from '../../config.js';
import { type AddressPolicy, refuseWebhookUrl } from '../../core/webhook-address.js';
import type { DeliveryRecord, Repositories, WebhookRecord, WebhookUpdate } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import { timeOrderedPage } from '../shared/cursors.js';
import type { Deps } from '../shared/deps.js';
import { enqueueEvent } from './events.js';
import { generateWebhookSecret, type SecretBox } from '../shared/secret-box.js';
import { requireWorkspace } from '../accounts/workspaces.js';

/** How long a rotated-out secret keeps signing beside the new one, so receivers can switch without a gap. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

const TEST_MESSAGE = 'A test event from Brand Context: your endpoint receives and verifies webhooks.';

export function toWebhookView(record: WebhookRecord): Webhook {
  return {
    id: record.id,
    workspace_id: record.workspaceId,
    url: record.url,
    events: record.events,
    enabled: record.disabledAt === null,
    disabled_reason: record.disabledReason,
    description: record.description,
    failing_since: record.failingSince,
    created_by: record.createdBy,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

export function toDeliveryView(record: DeliveryRecord): Delivery {
  return {
    id: record.id,
    webhook_id: record.webhookId,
    event_id: record.eventId,
    event_type: record.eventType,
    status: record.status,
    attempts: record.attempts,
    response_status: record.responseStatus,
    duration_ms: record.durationMs,
    error: record.error,
    created_at: record.createdAt,
    last_attempt_at: record.lastAttemptAt,
    next_attempt_at: record.nextAttemptAt,
  };
}

/** The secret that still signs beside the current one, while it does. */
export function previousSecretLive(record: WebhookRecord, now: number): string | undefined {
  const until = record.previousSecretExpiresAt;
  return record.previousSecret !== null && until !== null && Date.parse(until) > now
    ? record.previousSecret
    : undefined;
}

/** The endpoint, read through `store` (the service's or a transaction's); else 404 `webhook_not_found`. */
async function requireWebhook(
  store: Pick<Repositories, 'webhooks'>,
  workspaceId: string,
  webhookId: string,
): Promise<WebhookRecord> {
  const webhook = await store.webhooks.get(workspaceId, webhookId);
  if (!webhook) throw new AppError('webhook_not_found', { workspaceId, webhookId });
  return webhook;
}

/** An endpoint something is about to be sent to: a disabled one would only record "not sent". */
async function requireEnabledWebhook(
  store: Pick<Repositories, 'webhooks'>,
  workspaceId: string,
  webhookId: string,
): Promise<WebhookRecord> {
  const webhook = await requireWebhook(store, workspaceId, webhookId);
  if (webhook.disabledAt !== null) throw new AppError('webhook_disabled', { webhookId });
  return webhook;
}

/**
 * What `enabled` changes. Disabling a disabled endpoint keeps the time and reason it was disabled with;
 * enabling starts afresh: the failures that disabled it no longer count towards disabling it again.
 */
function enabledChange(
  enabled: boolean | undefined,
  before: WebhookRecord,
  now: string,
): Partial<WebhookUpdate> {
  if (enabled === true) return { disabledAt: null, disabledReason: null, failingSince: null };
  if (enabled === false && before.disabledAt === null) return { disabledAt: now, disabledReason: 'manual' };
  return {};
}

/** The address rules, and how many endpoints one workspace may have (`WEBHOOK_ENDPOINT_LIMIT`, 25 by default). */
export interface WebhookSettings extends AddressPolicy {
  endpointLimit?: number | undefined;
}

/**
 * What some endpoint use cases take beside their repositories: the box that seals signing secrets, and the
 * settings URLs and endpoint counts are checked against. The HTTP app's deps hold them, as the CLI's do.
 */
export interface WebhookComponents {
  secrets: SecretBox;
  webhookSettings: WebhookSettings;
}

/*
 * Webhook endpoints and their deliveries (docs/webhooks.md "Webhooks"). Only owners and admins reach these (the
 * routes' permissions); every change is audited. URLs are checked against the address rules when they are
 * set, and again, after DNS, at every delivery (src/delivery/webhook-sender.ts).
 */

function checkUrl(url: string, policy: AddressPolicy): void {
  const refusal = refuseWebhookUrl(url, policy);
  if (refusal !== undefined) {
    throw new AppError('invalid_request', {
      reason: 'input',
      subject: 'Invalid webhook endpoint',
      fields: [{ field: 'url', message: refusal }],
    });
  }
}

export async function createWebhook(
  deps: Deps<'workspaces' | 'webhooks' | 'audit'> & WebhookComponents,
  actor: Actor,
  workspaceId: string,
  input: NewWebhook,
): Promise<CreatedWebhook> {
  checkUrl(input.url, deps.webhookSettings);
  await requireWorkspace(deps, workspaceId);
  const secret = generateWebhookSecret();
  const now = isoAt(deps.clock);
  const record: WebhookRecord = {
    id: newId('wh'),
    workspaceId,
    url: input.url,
    events: input.events,
    description: input.description ?? null,
    secret: deps.secrets.seal(secret),
    previousSecret: null,
    previousSecretExpiresAt: null,
    disabledAt: null,
    disabledReason: null,
    failingSince: null,
    createdBy: actor.kind === 'user' ? actor.userId : null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.transaction(async (tx) => {
    // Counted under a lock, so that creates at once cannot pass the limit together; nothing is written past it.
    const limit = deps.webhookSettings.endpointLimit ?? DEFAULT_WEBHOOK_ENDPOINT_LIMIT;
    if ((await tx.webhooks.countLocked(workspaceId)) >= limit) {
      throw new AppError('webhook_limit_reached', { workspaceId, limit });
    }
    await tx.webhooks.create(record);
    await recordAudit(tx, actor, now, {
      workspaceId,
      action: 'webhook.created',
      targetType: 'webhook',
      targetId: record.id,
      details: { url: record.url, events: record.events.join(', ') },
    });
  });
  return { ...toWebhookView(record), secret };
}

export async function listWebhooks(deps: Deps<'webhooks'>, workspaceId: string): Promise<Webhook[]> {
  return (await deps.store.webhooks.list(workspaceId)).map(toWebhookView);
}

export async function getWebhook(
  deps: Deps<'webhooks'>,
  workspaceId: string,
  webhookId: string,
): Promise<Webhook> {
  return toWebhookView(await requireWebhook(deps.store, workspaceId, webhookId));
}

export function updateWebhook(
  deps: Deps<'webhooks' | 'deliveries' | 'audit'> & Pick<WebhookComponents, 'webhookSettings'>,
  actor: Actor,
  workspaceId: string,
  webhookId: string,
  changes: WebhookChanges,
): Promise<Webhook> {
  if (changes.url !== undefined) checkUrl(changes.url, deps.webhookSettings);
  const now = isoAt(deps.clock);
  const { enabled, ...fields } = changes;
  return deps.store.transaction(async (tx) => {
    const before = await requireWebhook(tx, workspaceId, webhookId);
    const updated = await tx.webhooks.update(workspaceId, webhookId, {
      ...fields,
      ...enabledChange(enabled, before, now),
      updatedAt: now,
    });
    // Deleted by another transaction since it was read: PostgreSQL does not lock the rows it reads.
    if (!updated) throw new AppError('webhook_not_found', { workspaceId, webhookId });
    // A new address, or an endpoint enabled again: its failures so far no longer hold its deliveries back.
    if (changes.url !== undefined || enabled === true) await tx.deliveries.backOff(webhookId, null);
    await recordAudit(tx, actor, now, {
      workspaceId,
      action: 'webhook.updated',
      targetType: 'webhook',
      targetId: webhookId,
      details: { fields: Object.keys(changes).join(', '), enabled: updated.disabledAt === null },
    });
    return toWebhookView(updated);
  });
}

export async function deleteWebhook(
  deps: Deps<'webhooks' | 'audit'>,
  actor: Actor,
  workspaceId: string,
  webhookId: string,
): Promise<void> {
  const now = isoAt(deps.clock);
  await deps.store.transaction(async (tx) => {
    const webhook = await tx.webhooks.delete(workspaceId, webhookId);
    if (!webhook) throw new AppError('webhook_not_found', { workspaceId, webhookId });
    await recordAudit(tx, actor, now, {
      workspaceId,
      action: 'webhook.deleted',
      targetType: 'webhook',
      targetId: webhookId,
      details: { url: webhook.url },
    });
  });
}

/** The signing secret, shown again; who looked is audited. */
export async function revealWebhookSecret(
  deps: Deps<'webhooks' | 'audit'> & Pick<WebhookComponents, 'secrets'>,
  actor: Actor,
  workspaceId: string,
  webhookId: string,
): Promise<WebhookSecret> {
  const webhook = await requireWebhook(deps.store, workspaceId, webhookId);
  const now = deps.clock.now();
  // Opened before the audit: a secret this node cannot open (secret_unreadable) was not revealed.
  const secret = deps.secrets.open(webhook.secret);
  await recordAudit(deps.store, actor, new Date(now).toISOString(), {
    workspaceId,
    action: 'webhook.secret_revealed',
    targetType: 'webhook',
    targetId: webhookId,
  });
  return {
    secret,
    previous_secret_expires_at:
      previousSecretLive(webhook, now) === undefined ? null : webhook.previousSecretExpiresAt,
  };
}

/** A new secret; the current one keeps signing beside it for 24 hours (SECRET_OVERLAP_MS). */
export async function rotateWebhookSecret(
  deps: Deps<'webhooks' | 'audit'> & Pick<WebhookComponents, 'secrets'>,
  actor: Actor,
  workspaceId: string,
  webhookId: string,
): Promise<WebhookSecret> {
  const secret = generateWebhookSecret();
  const sealed = deps.secrets.seal(secret);
  const now = deps.clock.now();
  const at = new Date(now).toISOString();
  const overlapUntil = new Date(now + SECRET_OVERLAP_MS).toISOString();
  await deps.store.transaction(async (tx) => {
    const webhook = await requireWebhook(tx, workspaceId, webhookId);
    await tx.webhooks.update(workspaceId, webhookId, {
      secret: sealed,
      previousSecret: webhook.secret,
      previousSecretExpiresAt: overlapUntil,
      updatedAt: at,
    });
    await recordAudit(tx, actor, at, {
      workspaceId,
      action: 'webhook.secret_rotated',
      targetType: 'webhook',
      targetId: webhookId,
      details: { previous_secret_expires_at: overlapUntil },
    });
  });
  return { secret, previous_secret_expires_at: overlapUntil };
}

/** Queues a `webhook.test` event for this endpoint alone, whatever it subscribes to. */
export function sendWebhookTest(
  deps: Deps<'webhooks' | 'deliveries' | 'audit'>,
  actor: Actor,
  workspaceId: string,
  webhookId: string,
): Promise<QueuedDelivery> {
  const at = isoAt(deps.clock);
  return deps.store.transaction(async (tx) => {
    await requireEnabledWebhook(tx, workspaceId, webhookId);
    // Someone asks for an attempt now: the endpoint's backoff after failures does not hold it back.
    await tx.deliveries.backOff(webhookId, null);
    const deliveryId = newId('dlv');
    const eventId = await enqueueEvent(
      tx,
      at,
      { workspaceId, type: 'webhook.test', data: { webhook_id: webhookId, message: TEST_MESSAGE } },
      [{ id: deliveryId, webhookId }],
    );
    await recordAudit(tx, actor, at, {
      workspaceId,
      action: 'webhook.tested',
      targetType: 'webhook',
      targetId: webhookId,
      details: { event_id: eventId },
    });
    return { delivery_id: deliveryId, event_id: eventId, status: 'pending' };
  });
}

/** One page of an endpoint's deliveries, newest first. */
export async function listDeliveries(
  deps: Deps<'webhooks' | 'deliveries'>,
  workspaceId: string,
  webhookId: string,
  page: { limit: number; cursor?: string | undefined; status?: DeliveryStatus | undefined },
): Promise<DeliveryPage> {
  await requireWebhook(deps.store, workspaceId, webhookId);
  const { records, next_cursor } = await timeOrderedPage(page, (after, limit) =>
    deps.store.deliveries.list(workspaceId, webhookId, { status: page.status, after, limit }),
  );
  return { items: records.map(toDeliveryView), next_cursor };
}

export async function getDelivery(
  deps: Deps<'webhooks' | 'deliveries'>,
  workspaceId: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryDetail> {
  await requireWebhook(deps.store, workspaceId, webhookId);
  const delivery = await deps.store.deliveries.get(workspaceId, webhookId, deliveryId);
  if (!delivery) throw new AppError('delivery_not_found', { webhookId, deliveryId });
  const attempts = await deps.store.deliveries.attempts(deliveryId);
  return {
    ...toDeliveryView(delivery),
    payload: delivery.payload,
    history: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      attempted_at: attempt.attemptedAt,
      response_status: attempt.responseStatus,
      duration_ms: attempt.durationMs,
      error: attempt.error,
    })),
  };
}

/**
 * Sends the delivery now, with the same event id (receivers dedupe on it). A settled one (failed or
 * succeeded) gets one more attempt; one still being retried keeps the rest of its schedule and is only
 * brought forward. Refused while an attempt is in flight.
 */
export function retryDelivery(
  deps: Deps<'webhooks' | 'deliveries' | 'audit'>,
  actor: Actor,
  workspaceId: string,
  webhookId: string,
  deliveryId: string,
): Promise<QueuedDelivery> {
  const at = isoAt(deps.clock);
  return deps.store.transaction(async (tx) => {
    await requireEnabledWebhook(tx, workspaceId, webhookId);
    const delivery = await tx.deliveries.get(workspaceId, webhookId, deliveryId);
    if (!delivery) throw new AppError('delivery_not_found', { webhookId, deliveryId });
    const settled = delivery.status === 'failed' || delivery.status === 'succeeded';
    const requeued = await tx.deliveries.requeue(
      deliveryId,
      at,
      settled ? delivery.attempts + 1 : delivery.maxAttempts,
    );
    if (!requeued) throw new AppError('delivery_in_progress', { deliveryId });
    await tx.deliveries.backOff(webhookId, null);
    await recordAudit(tx, actor, at, {
      workspaceId,
      action: 'webhook.delivery_retried',
      targetType: 'webhook',
      targetId: webhookId,
      details: { delivery_id: deliveryId, event_id: delivery.eventId },
    });
    return { delivery_id: deliveryId, event_id: delivery.eventId, status: 'pending' };
  });
}
