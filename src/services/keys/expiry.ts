import { keyEventType } from '../../contract/webhooks.js';
import { KEY_KIND_LIST, type KeyKind } from '../../core/key-kinds.js';
import type { Clock } from '../../core/clock.js';
import { can } from '../../core/roles.js';
import type { KeyRecord, Repositories } from '../../store/store.js';
import { type AccountMail, sendAccountEmail } from '../accounts/account-email.js';
import { keyExpiryMessage } from '../accounts/account-messages.js';
import type { Deps } from '../shared/deps.js';
import { type EventRepositories, publishEvent } from '../webhooks/events.js';
import { toKeyView } from './keys.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Keys that expired longer ago than this are not announced: a database from before webhooks, or a long outage. */
const EXPIRED_LOOKBACK_MS = 7 * DAY_MS;
const BATCH = 100;

/**
 * The notices of a key's end, most urgent first: `expired` once it has, `expiring` 3 and 14 days before. A
 * notice sent marks the less urgent ones as sent too, so a key first seen 2 days before its expiry gets
 * the 3-day notice and never a 14-day one afterwards.
 */
const NOTICES = [
  { notice: 'expired', event: 'expired', daysBefore: 0 },
  { notice: 'expiring_3d', event: 'expiring', daysBefore: 3 },
  { notice: 'expiring_14d', event: 'expiring', daysBefore: 14 },
] as const;

type SweepDeps = Deps<'keyNotices' | 'workspaces' | 'email' | EventRepositories> & { clock: Clock };

/**
 * Publishes the expiry events that are due (docs/webhooks.md "Webhooks", events), and emails the workspace's owners
 * and admins of a key about to expire (docs/account-email.md "Account email"). Safe on any number of nodes at once: each
 * notice is recorded in the transaction that publishes it, and only the transaction that recorded it first
 * publishes. Returns how many events it published.
 */
export async function sweepKeyExpiry(
  deps: SweepDeps,
  mail: Pick<AccountMail, 'secrets' | 'from'>,
): Promise<number> {
  const now = deps.clock.now();
  const at = new Date(now).toISOString();
  let published = 0;
  for (const kind of KEY_KIND_LIST) {
    for (const [index, { notice, event, daysBefore }] of NOTICES.entries()) {
      const covered = NOTICES.slice(index + 1).map((less) => less.notice);
      const window =
        daysBefore === 0
          ? { since: now - EXPIRED_LOOKBACK_MS, until: now }
          : { since: now, until: now + daysBefore * DAY_MS };
      for (;;) {
        const keys = await deps.store.keyNotices.due(kind.id, notice, {
          since: new Date(window.since).toISOString(),
          until: new Date(window.until).toISOString(),
          limit: BATCH,
        });
        for (const key of keys) {
          const announced = await deps.store.transaction(async (tx) => {
            if (!(await tx.keyNotices.record(key.id, notice, at))) return false;
            for (const less of covered) await tx.keyNotices.record(key.id, less, at);
            const view = toKeyView(key, now);
            await publishEvent(
              tx,
              at,
              event === 'expired'
                ? { workspaceId: key.workspaceId, type: keyEventType(kind, event), data: { key: view } }
                : {
                    workspaceId: key.workspaceId,
                    type: keyEventType(kind, event),
                    data: { key: view, days_before_expiry: daysBefore },
                  },
            );
            if (daysBefore > 0) await emailManagers(tx, mail, at, kind, key);
            return true;
          });
          if (announced) published += 1;
        }
        if (keys.length < BATCH) break;
      }
    }
  }
  return published;
}

/** Emails each owner and admin of the key's workspace that the key expires soon: one message each. */
async function emailManagers(
  store: Pick<Repositories, 'workspaces' | 'email'>,
  mail: Pick<AccountMail, 'secrets' | 'from'>,
  at: string,
  kind: KeyKind,
  key: KeyRecord,
): Promise<void> {
  const workspace = await store.workspaces.get(key.workspaceId);
  if (!workspace || key.expiresAt === null) return;
  const message = keyExpiryMessage({
    kind,
    keyName: key.name,
    workspaceName: workspace.name,
    expiresAt: key.expiresAt,
  });
  for (const member of await store.workspaces.listMembers(key.workspaceId)) {
    // Those who can replace the key: the owners and admins.
    if (!can(member.role, 'keys.write')) continue;
    await sendAccountEmail(store, mail, at, { email: member.email, workspaceId: key.workspaceId }, message);
  }
}
