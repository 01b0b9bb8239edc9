import type { MemberCredentials } from '../../contract/members.js';
import { brandKeyStatus, lifecycleTimes } from '../../core/key-lifecycle.js';
import type { KeyRecord, Repositories, WebhookRecord } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { EventRepositories } from '../webhooks/events.js';
import { revokeKeyIn, toKeyView } from '../keys/keys.js';
import { toWebhookView } from '../webhooks/webhooks.js';

/*
 * A member's credentials (docs/management-api.md "Management API", removing a member): the brand read keys, workspace API keys
 * and webhook endpoints they created. They belong to the workspace and keep working when their creator
 * leaves; removing the member with `revoke_credentials` revokes the keys and disables the endpoints with them.
 */

/** The key kinds a member creates: the operator makes transactional email keys. */
const MEMBER_KEY_KINDS = ['brand', 'api'] as const;

/** Why a credential was revoked or disabled, in its audit entry. */
const CREATOR_REMOVED = 'creator_removed';

/** What a member created that still works, as records. */
interface LiveCredentials {
  brand: KeyRecord[];
  api: KeyRecord[];
  webhooks: WebhookRecord[];
}

/** The keys `userId` created in the workspace that are active at `now`, and the enabled endpoints they created. */
async function liveCredentialsOf(
  store: Pick<Repositories, 'keys' | 'webhooks'>,
  workspaceId: string,
  userId: string,
  now: number,
): Promise<LiveCredentials> {
  const activeKeys = async (kind: (typeof MEMBER_KEY_KINDS)[number]) =>
    (await store.keys.list(kind, workspaceId)).filter(
      (key) => key.createdBy === userId && brandKeyStatus(lifecycleTimes(key), now) === 'active',
    );
  // One after the other: inside a transaction, the queries share one connection.
  const brand = await activeKeys('brand');
  const api = await activeKeys('api');
  const webhooks = await store.webhooks.list(workspaceId);
  return {
    brand,
    api,
    webhooks: webhooks.filter((webhook) => webhook.createdBy === userId && webhook.disabledAt === null),
  };
}

function toCredentialsView(credentials: LiveCredentials, now: number): MemberCredentials {
  return {
    brand_keys: credentials.brand.map((key) => toKeyView(key, now)),
    api_keys: credentials.api.map((key) => toKeyView(key, now)),
    webhooks: credentials.webhooks.map(toWebhookView),
  };
}

/** What `userId` created in the workspace that still works: what removing them with `revoke_credentials` ends. */
export async function memberCredentials(
  store: Pick<Repositories, 'keys' | 'webhooks'>,
  workspaceId: string,
  userId: string,
  now: number,
): Promise<MemberCredentials> {
  return toCredentialsView(await liveCredentialsOf(store, workspaceId, userId, now), now);
}

/**
 * Inside the removal's transaction `tx`: disables the endpoints `userId` created, then revokes their active
 * keys, each audited as `actor`'s with the reason `creator_removed`, each revocation announced as its
 * `…revoked` event. Endpoints go first, so that the removed member's own endpoints receive none of these
 * events. Disabled, not deleted: an owner or admin can check the address, rotate the secret and enable the
 * endpoint again, with its delivery log intact. Returns what it revoked and disabled.
 */
export async function revokeMemberCredentials(
  tx: Pick<Repositories, 'keys' | 'audit' | EventRepositories>,
  actor: Actor,
  at: string,
  workspaceId: string,
  userId: string,
): Promise<MemberCredentials> {
  const now = Date.parse(at);
  const live = await liveCredentialsOf(tx, workspaceId, userId, now);
  const done: LiveCredentials = { brand: [], api: [], webhooks: [] };
  for (const webhook of live.webhooks) {
    const disabled = await tx.webhooks.update(workspaceId, webhook.id, {
      disabledAt: at,
      disabledReason: 'manual',
      updatedAt: at,
    });
    if (!disabled) continue;
    done.webhooks.push(disabled);
    await recordAudit(tx, actor, at, {
      workspaceId,
      action: 'webhook.updated',
      targetType: 'webhook',
      targetId: webhook.id,
      details: { fields: 'enabled', enabled: false, url: webhook.url, reason: CREATOR_REMOVED },
    });
  }
  for (const kindId of MEMBER_KEY_KINDS) {
    for (const key of live[kindId]) {
      const revoked = await revokeKeyIn(tx, kindId, actor, at, workspaceId, key.id, CREATOR_REMOVED);
      if (revoked?.revokedNow) done[kindId].push(revoked.record);
    }
  }
  return toCredentialsView(done, now);
}
