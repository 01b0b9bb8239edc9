import type { BrandContext, BrandSection } from '../core/brand-context.js';
import type { BrandReview } from '../core/brand-versions.js';
import type { ChangeFeed } from './change-feed.js';

import type { CampaignContent, CampaignStatus } from '../contract/campaigns.js';
import type { DeliveryStatus, DisabledReason } from '../contract/webhooks.js';
import type { EmailStatus } from '../contract/email.js';
import type { KeyKindId } from '../core/key-kinds.js';
import type { Role } from '../core/roles.js';

export type { CampaignStatus, Role };

export interface WorkspaceRecord {
  id: string;
  name: string;
  createdAt: string;
  /** Whether brand changes wait for an owner or admin to publish them (docs/brand-versions.md "Review"); `off` by default. */
  brandReview?: BrandReview;
}

export interface UserRecord {
  id: string;
  email: string;
  passwordHash: string | null;
  createdAt: string;
}

export interface MembershipRecord {
  workspaceId: string;
  userId: string;
  role: Role;
  createdAt: string;
}

/** A workspace key of any kind (src/core/key-kinds.ts): all are stored alike, in one table. */
export interface KeyRecord {
  id: string;
  workspaceId: string;
  name: string;
  keyHash: string;
  prefix: string;
  last4: string;
  createdBy: string | null;
  createdAt: string;
  /** Null: the key lives until revoked. */
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** What judging a presented key needs (src/services/auth/credentials.ts): its record less what listings show. */
export type KeyCredential = Pick<
  KeyRecord,
  'id' | 'workspaceId' | 'keyHash' | 'prefix' | 'expiresAt' | 'revokedAt'
>;

/**
 * A campaign: what its author wrote, under the contract's names (src/contract/campaigns.ts), so that the
 * repository and the services carry the content fields along without naming them.
 */
export interface CampaignRecord extends CampaignContent {
  id: string;
  workspaceId: string;
  status: CampaignStatus;
  /** 1 when created, +1 on every change: the optimistic-concurrency token behind ETag/If-Match. */
  version: number;
  /**
   * The published brand version the draft was last written against (docs/brand-versions.md); null for
   * campaigns written before brands had versions. Reads always answer it; a create may leave it out (null).
   */
  brandVersion?: number | null;
  createdAt: string;
  updatedAt: string;
}

/** A change to a campaign: the fields it names, and when it was made. */
export interface CampaignUpdate extends Partial<CampaignContent> {
  status?: CampaignStatus;
  /** The published brand version the change was written against; left as it was when undefined. */
  brandVersion?: number | null;
  updatedAt: string;
}

/** A listing position: the (created_at, id) of the last campaign or delivery of the previous page. */
export interface ListPosition {
  createdAt: string;
  id: string;
}

/** A personal access token's record; the token itself (a signed JWT) is never stored. */
export interface AccessTokenRecord {
  id: string;
  userId: string;
  name: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export type ActorType = 'user' | 'api_key' | 'operator' | 'system';

export interface AuditEventRecord {
  id: string;
  workspaceId: string | null;
  actorType: ActorType;
  /** The user's or key's id; null for operator actions taken through the CLI. */
  actorId: string | null;
  actorEmail: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  details: Record<string, string | number | boolean | null>;
  createdAt: string;
}

/** An audit event as listed, with its position in the log. */
export interface StoredAuditEvent extends AuditEventRecord {
  seq: number;
}

export interface WorkspaceMembership extends WorkspaceRecord {
  role: Role;
}

/** When each credential was last used, gathered in memory and written in batches. */
export interface UsageStamp {
  id: string;
  usedAt: string;
}

/** A revoked record, and whether this call revoked it (false: it was revoked already). */
export interface Revocation<T> {
  record: T;
  revokedNow: boolean;
}

/** A brand context as it is written: everything but the server-maintained `workspace_id`, `updated_at`, `version`. */
export type BrandContent = Omit<BrandContext, 'workspace_id' | 'updated_at' | 'version'>;

/** Who made a change, as the audit log records it (src/services/audit/audit.ts `Actor`, flattened). */
export interface ChangeAuthor {
  actorType: ActorType;
  /** The user's or key's id; null for the operator at the CLI and the service itself. */
  actorId: string | null;
  actorEmail: string | null;
}

/** What every change of the published brand records beside its content: its version's provenance. */
export interface BrandChange extends ChangeAuthor {
  note: string | null;
  /** The sections whose content differs from the version before; every section for version 1. */
  sectionsChanged: BrandSection[];
}

/** One immutable version of a workspace's brand, as history lists it. */
export interface BrandVersionRecord extends BrandChange {
  workspaceId: string;
  version: number;
  createdAt: string;
}

/**
 * The one unpublished draft of a workspace's brand while review is on. `revision` moves on every save (the
 * draft's ETag); `baseVersion` is the published version the draft was last saved against.
 */
export interface BrandDraftRecord extends ChangeAuthor {
  workspaceId: string;
  content: BrandContent;
  baseVersion: number;
  revision: number;
  updatedAt: string;
}

/** The user accounts: people who sign in, hold personal tokens and belong to any number of workspaces. */
export interface UsersRepository {
  create(user: UserRecord): Promise<void>;
  get(id: string): Promise<UserRecord | undefined>;
  findByEmail(email: string): Promise<UserRecord | undefined>;
  setPasswordHash(userId: string, passwordHash: string): Promise<void>;
}

/** Workspaces and who belongs to them, with which role. */
export interface WorkspacesRepository {
  /**
   * Creates the workspace with its first brand (version 1, recorded in its history with `change`, by
   * default the service's with no note); the brand's name is the workspace's.
   */
  create(workspace: WorkspaceRecord, brand: Omit<BrandContent, 'name'>, change?: BrandChange): Promise<void>;
  /** Sets whether brand changes need review; whether the workspace exists. */
  setBrandReview(id: string, review: BrandReview): Promise<boolean>;
  get(id: string): Promise<WorkspaceRecord | undefined>;
  list(): Promise<WorkspaceRecord[]>;
  /** The workspaces `userId` belongs to, with the role in each. */
  listOf(userId: string): Promise<WorkspaceMembership[]>;
  addMember(membership: MembershipRecord): Promise<void>;
  getMember(workspaceId: string, userId: string): Promise<MembershipRecord | undefined>;
  /**
   * The members with their emails. With `lock`, inside a transaction, their rows stay locked until it ends, so
   * that concurrent changes judged on the list (the last owner's removal) apply one after the other.
   */
  listMembers(
    workspaceId: string,
    options?: { lock?: boolean },
  ): Promise<(MembershipRecord & { email: string })[]>;
  /** Returns whether there was such a member. */
  removeMember(workspaceId: string, userId: string): Promise<boolean>;
}

/** A workspace's brand context: what the read operation serves. */
export interface BrandRepository {
  get(workspaceId: string): Promise<BrandContext | undefined>;
  /**
   * Replaces the whole brand (the name renames the workspace) and returns it with its new version, which is
   * recorded in the brand's history with `change` in the same transaction.
   */
  replace(
    workspaceId: string,
    content: BrandContent,
    updatedAt: string,
    change: BrandChange,
  ): Promise<BrandContext>;
  /**
   * Replaces the brand as `replace` does, but only while it is still at `version`: the check is part of the
   * write itself (compare-and-set), so of two transactions that read the same version only one can write.
   * Undefined, with nothing written, when the brand has moved on (or does not exist).
   */
  replaceAtVersion(
    workspaceId: string,
    version: number,
    content: BrandContent,
    updatedAt: string,
    change: BrandChange,
  ): Promise<BrandContext | undefined>;
  /** The history, newest first: at most `limit` versions older than `before` (all when unset). */
  listVersions(workspaceId: string, page: { before?: number; limit: number }): Promise<BrandVersionRecord[]>;
  /** One version as it was: its record and the whole brand context of that version. */
  getVersion(
    workspaceId: string,
    version: number,
  ): Promise<{ record: BrandVersionRecord; brand: BrandContext } | undefined>;
  getDraft(workspaceId: string): Promise<BrandDraftRecord | undefined>;
  /**
   * Saves the draft, compare-and-set on its revision: with `expectedRevision` a number, only over that
   * revision; null, only when there is no draft; undefined, over whatever is there. Writes `draft.revision`
   * as given. Answers whether it was written.
   */
  saveDraft(draft: BrandDraftRecord, expectedRevision: number | null | undefined): Promise<boolean>;
  /**
   * Deletes the draft, atomically (of two calls at once, one gets it): only at `revision` when given. Answers
   * the deleted draft, or undefined when there was none (or it was at another revision).
   */
  takeDraft(workspaceId: string, revision?: number): Promise<BrandDraftRecord | undefined>;
}

/**
 * Workspace keys of every kind (src/core/key-kinds.ts), in one table whose `kind` column says which: each
 * method that names a kind reads and writes that kind's keys only, so one kind never passes for another.
 */
export interface KeysRepository {
  create(kind: KeyKindId, key: KeyRecord): Promise<void>;
  /** Creates the key unless one of its id or hash exists; whether it did (several nodes may try at once). */
  createUnlessExists(kind: KeyKindId, key: KeyRecord): Promise<boolean>;
  /**
   * The keys of `kind` whose hashes are among `keyHashes`, in one query, each once and in no particular
   * order: a hash that matches none is simply absent (src/services/auth/credentials.ts batches its lookups, and
   * src/services/keys/signed-keys.ts confirms with it that keys its signatures verified have rows).
   */
  findByHashes(kind: KeyKindId, keyHashes: readonly string[]): Promise<KeyCredential[]>;
  /** Newest first. */
  list(kind: KeyKindId, workspaceId: string): Promise<KeyRecord[]>;
  /**
   * The hashes of the revoked keys of `kind` in `workspaceId` that expire after `expiringAfter`
   * (src/services/keys/signed-keys.ts keeps them in memory).
   */
  revokedHashes(kind: KeyKindId, workspaceId: string, expiringAfter: string): Promise<string[]>;
  /** Sets `revoked_at` unless already set; undefined if the workspace has no such key. */
  revoke(
    kind: KeyKindId,
    workspaceId: string,
    keyId: string,
    revokedAt: string,
  ): Promise<Revocation<KeyRecord> | undefined>;
  /**
   * Records `usedAt` for each key unless a later use is already recorded (several nodes flush). An id names
   * one key of whichever kind: ids are unique across kinds.
   */
  touch(stamps: readonly UsageStamp[]): Promise<void>;
}

/** Personal access tokens, and the sign-in sessions that were signed out before they expired. */
export interface TokensRepository {
  create(token: AccessTokenRecord): Promise<void>;
  get(id: string): Promise<AccessTokenRecord | undefined>;
  /** Newest first. */
  list(userId: string): Promise<AccessTokenRecord[]>;
  /** Sets `revoked_at` unless already set; undefined if the user has no such token. */
  revoke(userId: string, id: string, revokedAt: string): Promise<Revocation<AccessTokenRecord> | undefined>;
  /** Records `usedAt` for each token unless a later use is already recorded. */
  touch(stamps: readonly UsageStamp[]): Promise<void>;
  /** Records a signed-out session until `expiresAt`, forgetting those whose tokens are past `now`. */
  signOutSession(id: string, expiresAt: string, now: string): Promise<void>;
  isSessionSignedOut(id: string): Promise<boolean>;
}

export interface CampaignsRepository {
  create(campaign: CampaignRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<CampaignRecord | undefined>;
  /** Newest first; `after` continues a listing after the last campaign of the previous page. */
  list(
    workspaceId: string,
    options: { status?: CampaignStatus | undefined; after?: ListPosition | undefined; limit: number },
  ): Promise<CampaignRecord[]>;
  /**
   * Applies `update` if the campaign is in `fromStatus`, raising its version by one, atomically against
   * concurrent updates: each applies to the version the previous one left. Returns the updated campaign
   * (the version it was applied to is one less), or undefined if there is no such campaign in that status.
   */
  update(
    workspaceId: string,
    id: string,
    fromStatus: CampaignStatus,
    update: CampaignUpdate,
  ): Promise<CampaignRecord | undefined>;
}

export interface AuditRepository {
  append(event: AuditEventRecord): Promise<void>;
  /** Newest first; `beforeSeq` continues a listing after its last event. */
  list(workspaceId: string, options: { beforeSeq?: number; limit: number }): Promise<StoredAuditEvent[]>;
}

export interface SettingsRepository {
  /** The stored value, or `value` stored now if there was none: the first writer wins, every node agrees. */
  getOrCreate(name: string, value: string): Promise<string>;
}

/** A webhook endpoint. Its secrets are sealed (src/services/shared/secret-box.ts): never stored as shown. */
export interface WebhookRecord {
  id: string;
  workspaceId: string;
  url: string;
  /** Event types, or `['*']`. */
  events: string[];
  description: string | null;
  secret: string;
  /** The secret before the last rotation, which signs beside the new one until it expires. */
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  disabledAt: string | null;
  disabledReason: DisabledReason | null;
  /** When the current run of failed deliveries began; null while they succeed. */
  failingSince: string | null;
  /** The user who created it; null for the operator (CLI), or an account since deleted. */
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export type WebhookUpdate = Partial<Omit<WebhookRecord, 'id' | 'workspaceId' | 'createdBy' | 'createdAt'>> & {
  updatedAt: string;
};

export interface WebhooksRepository {
  create(webhook: WebhookRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<WebhookRecord | undefined>;
  /** Oldest first. */
  list(workspaceId: string): Promise<WebhookRecord[]>;
  /** Applies the fields `update` names; undefined if the workspace has no such endpoint. */
  update(workspaceId: string, id: string, update: WebhookUpdate): Promise<WebhookRecord | undefined>;
  /** Deletes the endpoint and its deliveries; returns the endpoint, undefined if there was none. */
  delete(workspaceId: string, id: string): Promise<WebhookRecord | undefined>;
  /**
   * How many endpoints the workspace has, counted so that another transaction counting them waits until this
   * one ends (the endpoint limit holds however many create at once).
   */
  countLocked(workspaceId: string): Promise<number>;
}

/** An event as it is sent: `payload` is the body every attempt signs and sends, byte for byte. */
export interface WebhookEventRecord {
  id: string;
  workspaceId: string;
  type: string;
  payload: string;
  createdAt: string;
}

/** One event on its way to one endpoint: a job of the delivery queue. */
export interface DeliveryRecord {
  id: string;
  workspaceId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  /** The attempts allowed in all: null for one, then one per retry of the schedule; a manual retry allows one more. */
  maxAttempts: number | null;
  nextAttemptAt: string | null;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  lastAttemptAt: string | null;
  createdAt: string;
}

/** A delivery a worker holds the lease of, with what it sends. */
export interface ClaimedDelivery extends DeliveryRecord {
  payload: string;
  /** The lease's token: only its holder can settle or release the delivery. */
  lease: string;
}

export interface DeliveryAttemptRecord {
  attempt: number;
  attemptedAt: string;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

/** What an attempt left the delivery as: settled (no next attempt), or due again at `nextAttemptAt`. */
export interface DeliveryOutcome {
  status: DeliveryStatus;
  nextAttemptAt: string | null;
}

/**
 * The delivery queue (docs/webhooks.md "Webhooks", delivery): a transactional outbox. Events are enqueued in the
 * transaction of the change that causes them; workers claim due deliveries with a lease, so one worker at a
 * time sends each, and a lease that runs out (a node died) frees the delivery for another.
 */
export interface DeliveriesRepository {
  /** Stores the event and one pending delivery of it per endpoint, due at once. */
  enqueue(event: WebhookEventRecord, deliveries: readonly { id: string; webhookId: string }[]): Promise<void>;
  /** Deliveries not yet settled (pending or retrying), by status; a status with none is left out. */
  countQueued(): Promise<{ status: DeliveryStatus; count: number }[]>;
  /**
   * Leases up to `limit` deliveries due at `now` that no live lease holds, until `leaseUntil`, to `lease`,
   * fairly (src/core/fair-claim.ts): round-robin across workspaces, each endpoint's oldest first, at most
   * `perEndpoint` leases live per endpoint (no limit when not given), none for an endpoint backing off. On
   * PostgreSQL concurrent claims skip the endpoints another is claiming (FOR NO KEY UPDATE SKIP LOCKED on
   * their rows); SQLite runs them one at a time (BEGIN IMMEDIATE).
   */
  claim(options: {
    lease: string;
    now: string;
    leaseUntil: string;
    limit: number;
    perEndpoint?: number | undefined;
  }): Promise<ClaimedDelivery[]>;
  /**
   * Keeps claims off the endpoint until `until` (after a failed attempt), or lets them at it again (null).
   */
  backOff(webhookId: string, until: string | null): Promise<void>;
  /**
   * Records an attempt and the delivery's new state, if `lease` still holds it; returns whether it did (a
   * worker whose lease ran out records nothing: another has the delivery now).
   */
  settle(
    id: string,
    lease: string,
    attempt: DeliveryAttemptRecord,
    outcome: DeliveryOutcome,
  ): Promise<boolean>;
  /** Gives a delivery back unattempted (the worker is stopping): due again at once, for any worker. */
  release(id: string, lease: string): Promise<void>;
  get(
    workspaceId: string,
    webhookId: string,
    id: string,
  ): Promise<(DeliveryRecord & { payload: string; leased: boolean }) | undefined>;
  /** Oldest first. */
  attempts(deliveryId: string): Promise<DeliveryAttemptRecord[]>;
  /** Newest first; `after` continues a listing after the last delivery of the previous page. */
  list(
    workspaceId: string,
    webhookId: string,
    options: { status?: DeliveryStatus | undefined; after?: ListPosition | undefined; limit: number },
  ): Promise<DeliveryRecord[]>;
  /** Makes a delivery `pending` at `now` with `maxAttempts`, unless a worker holds it; returns whether it did. */
  requeue(id: string, now: string, maxAttempts: number | null): Promise<boolean>;
}

/** The expiry notices of keys (`expiring` 14 and 3 days before, `expired`), each sent once. */
export interface KeyNoticesRepository {
  /**
   * Keys of `kind`, not revoked, expiring before `until` and after `since`, that have not had `notice`: the
   * candidates of one sweep.
   */
  due(
    kind: KeyKindId,
    notice: string,
    options: { since: string; until: string; limit: number },
  ): Promise<KeyRecord[]>;
  /** Records that `notice` went out for the key; false when it had already (another node was first). */
  record(keyId: string, notice: string, sentAt: string): Promise<boolean>;
}

/** A message accepted for sending (docs/email.md "Transactional email"), with what its headers say. */
export interface EmailMessageRecord {
  id: string;
  /** Null for account email that belongs to no workspace (a password reset). */
  workspaceId: string | null;
  /** `api`: POST /email/v1/messages; `account`: invites, password resets, key expiry notices. */
  source: 'api' | 'account';
  /** The From header, as `Name <address>` or the address. */
  from: string;
  /** The To and Cc headers (Bcc recipients appear in no header). */
  toHeader: string[];
  ccHeader: string[];
  replyTo: string[];
  /** The client's X- headers. */
  headers: Record<string, string>;
  tags: Record<string, string>;
  subject: string;
  /** `{"html","text"}` as JSON, sealed (src/services/shared/secret-box.ts): never stored readable. */
  body: string;
  status: EmailStatus;
  createdAt: string;
  updatedAt: string;
}

/** One recipient of a message: a job of the delivery queue of its own. */
export interface EmailRecipientRecord {
  id: string;
  messageId: string;
  email: string;
  field: 'to' | 'cc' | 'bcc';
  status: EmailStatus;
  attempts: number;
  nextAttemptAt: string | null;
  /** The relay's last answer, or why nothing was sent. */
  lastResponse: string | null;
}

/** A status a recipient (or, with no recipient, the whole message) reached. */
export interface EmailEventRecord {
  id: string;
  messageId: string;
  recipient: string | null;
  type: EmailStatus;
  detail: string | null;
  at: string;
}

export interface EmailMessageWithRecipients extends EmailMessageRecord {
  recipients: EmailRecipientRecord[];
}

/** A recipient a worker holds the lease of, with its message. */
export interface ClaimedEmail {
  recipient: EmailRecipientRecord;
  message: EmailMessageRecord;
  lease: string;
}

/** What an attempt left a recipient as; `nextAttemptAt` set only while `deferred`. */
export interface EmailOutcome {
  /** The email_events row the outcome is recorded as. */
  eventId: string;
  status: EmailStatus;
  attempts: number;
  nextAttemptAt: string | null;
  response: string | null;
  at: string;
}

export interface EmailSenderRecord {
  workspaceId: string;
  sender: string;
  createdAt: string;
}

export interface EmailSuppressionRecord {
  workspaceId: string;
  email: string;
  reason: 'bounced';
  detail: string | null;
  messageId: string | null;
  createdAt: string;
}

export interface IdempotencyRecord {
  workspaceId: string;
  key: string;
  requestHash: string;
  messageId: string;
  createdAt: string;
}

/**
 * Transactional and account email: messages with their recipients and events, allowed senders,
 * suppressions and idempotency keys. Sending them is EmailQueueRepository's.
 */
export interface EmailRepository {
  /** Stores the message, its recipients (due at once unless settled already, e.g. suppressed) and events. */
  create(
    message: EmailMessageRecord,
    recipients: readonly EmailRecipientRecord[],
    events: readonly EmailEventRecord[],
  ): Promise<void>;
  /** With `workspaceId` null, a message of no workspace; undefined when there is none of that id there. */
  get(workspaceId: string | null, id: string): Promise<EmailMessageWithRecipients | undefined>;
  events(messageId: string): Promise<EmailEventRecord[]>;
  /** Newest first. */
  list(
    workspaceId: string,
    options: {
      status?: EmailStatus | undefined;
      /** Only messages from this source (the mailbox lists captured ones of both). */
      source?: 'api' | 'account' | undefined;
      after?: ListPosition | undefined;
      limit: number;
    },
  ): Promise<EmailMessageWithRecipients[]>;
  /**
   * Captured messages of every workspace and of none, newest first, optionally only those to `to`: the
   * operator's mailbox (`brand-context mailbox`), where account email of no workspace can be read.
   */
  listCaptured(options: { to?: string | undefined; limit: number }): Promise<EmailMessageWithRecipients[]>;

  findIdempotencyKey(workspaceId: string, key: string, since: string): Promise<IdempotencyRecord | undefined>;
  /** Replaces an entry older than `since`; throws the store's unique violation when a live one exists. */
  recordIdempotencyKey(record: IdempotencyRecord, since: string): Promise<void>;

  listSenders(workspaceId: string): Promise<EmailSenderRecord[]>;
  /** False when the workspace already had it. */
  addSender(sender: EmailSenderRecord): Promise<boolean>;
  removeSender(workspaceId: string, sender: string): Promise<boolean>;

  listSuppressions(workspaceId: string): Promise<EmailSuppressionRecord[]>;
  /** The suppressed addresses among `emails`. */
  suppressed(workspaceId: string, emails: readonly string[]): Promise<Set<string>>;
  /** Keeps the first suppression of an address. */
  suppress(suppression: EmailSuppressionRecord): Promise<void>;
  removeSuppression(workspaceId: string, email: string): Promise<boolean>;
}

/** The recipients of messages as jobs of the delivery queue, claimed and settled like webhook deliveries. */
export interface EmailQueueRepository {
  /** Leases up to `limit` due recipients, as DeliveriesRepository.claim does deliveries. */
  claim(options: { lease: string; now: string; leaseUntil: string; limit: number }): Promise<ClaimedEmail[]>;
  /** Recipients not yet settled (queued or deferred), by status; a status with none is left out. */
  countQueued(): Promise<{ status: EmailStatus; count: number }[]>;
  /**
   * Records an attempt's outcome and its event while `lease` still holds the recipient, and brings the
   * message's status up to date; false when the lease was lost (the attempt is another node's).
   */
  settle(recipientId: string, lease: string, outcome: EmailOutcome): Promise<boolean>;
  release(recipientId: string, lease: string): Promise<void>;
}

/** A one-time link's token, by its hash: an invite or a password reset (docs/account-email.md "Account email"). */
export interface AccountTokenRecord {
  id: string;
  tokenHash: string;
  purpose: 'invite' | 'password_reset';
  userId: string;
  workspaceId: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  /** When a newer link replaced it (a resend): it ended then, and says so. */
  replacedAt: string | null;
  /** The email that carried the link. */
  messageId: string | null;
}

/** How unused links end: replaced by a newer one, or simply expired (the member removed, a password set). */
export type LinkEnding = 'expired' | 'replaced';

/** A pending invite, with what became of the email that carried it. */
export interface PendingInvite extends AccountTokenRecord {
  /** The status of its recipient and the relay's last answer; null if the email is gone. */
  delivery: { status: EmailStatus; detail: string | null } | null;
}

export interface AccountTokensRepository {
  create(token: AccountTokenRecord): Promise<void>;
  findByHash(tokenHash: string): Promise<AccountTokenRecord | undefined>;
  /** Marks the token used if it was not already: true for the one caller that used it. */
  use(id: string, usedAt: string): Promise<boolean>;
  /** Ends every unused token of the user for `purpose`, as `ending` says. */
  expireUnused(
    userId: string,
    purpose: AccountTokenRecord['purpose'],
    at: string,
    ending: LinkEnding,
  ): Promise<void>;
  /** Ends the user's unused invites into the workspace: `replaced` (resent) or `expired` (member removed). */
  expireInvites(userId: string, workspaceId: string, at: string, ending: LinkEnding): Promise<void>;
  /**
   * The newest unused invite into the workspace of each account that has no password yet: the invites its
   * members list shows as pending, expired ones included.
   */
  pendingInvites(workspaceId: string): Promise<PendingInvite[]>;
}

/** An OAuth client of MCP (docs/mcp.md): registered (RFC 7591), or known by its metadata document's URL. */
export interface OAuthClientRecord {
  id: string;
  name: string;
  redirectUris: string[];
  source: 'registered' | 'metadata_document';
  metadata: Record<string, unknown>;
  createdAt: string;
  /** When the metadata document was last fetched; the registration's time for a registered client. */
  refreshedAt: string;
}

/** What a user let a client do in one workspace; its codes and tokens work while it is not revoked. */
export interface OAuthGrantRecord {
  /** `og_…` */
  id: string;
  clientId: string;
  userId: string;
  workspaceId: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** An authorization code, by its hash: the code itself is never stored. */
export interface OAuthCodeRecord {
  hash: string;
  grantId: string;
  redirectUri: string;
  /** The PKCE S256 challenge. */
  codeChallenge: string;
  resource: string;
  expiresAt: string;
  usedAt: string | null;
}

/** An access or refresh token, by its hash: the token itself is never stored. */
export interface OAuthTokenRecord {
  hash: string;
  grantId: string;
  kind: 'access' | 'refresh';
  expiresAt: string;
  /** A refresh token's one use: they rotate, so a second is a replay. Null for access tokens. */
  usedAt: string | null;
  createdAt: string;
}

/** A grant as a workspace's connected apps list it. */
export interface ListedOAuthGrant extends OAuthGrantRecord {
  clientName: string;
  userEmail: string;
}

/** OAuth clients, the grants users give them, and the codes and tokens of each grant. */
export interface OAuthRepository {
  /**
   * Inserts the client, or replaces the one of its id (a metadata document fetched again), all but its
   * `createdAt`.
   */
  saveClient(client: OAuthClientRecord): Promise<void>;
  getClient(id: string): Promise<OAuthClientRecord | undefined>;
  createGrant(grant: OAuthGrantRecord): Promise<void>;
  getGrant(id: string): Promise<OAuthGrantRecord | undefined>;
  saveCode(code: OAuthCodeRecord): Promise<void>;
  /**
   * Marks the code used at `now`, atomically, and answers it as it was before: `usedAt` null for the one call
   * that used it first, set for a replay; undefined when there is no such code.
   */
  useCode(hash: string, now: string): Promise<OAuthCodeRecord | undefined>;
  saveToken(token: OAuthTokenRecord): Promise<void>;
  /**
   * Marks the refresh token used at `now`, atomically, and answers it as it was before: of calls at once, one
   * sees `usedAt` null; undefined when there is no such refresh token.
   */
  useRefreshToken(hash: string, now: string): Promise<OAuthTokenRecord | undefined>;
  /**
   * A token of either kind with its grant and the grant's client name, whatever their state: callers judge
   * expiry and revocation.
   */
  findToken(
    hash: string,
  ): Promise<{ token: OAuthTokenRecord; grant: OAuthGrantRecord; clientName: string } | undefined>;
  /** Sets `revoked_at` unless already set; answers the grant when this call revoked it, else undefined. */
  revokeGrant(id: string, now: string): Promise<OAuthGrantRecord | undefined>;
  /** Moves `last_used_at` forward to `now` (callers throttle how often). */
  touchGrant(id: string, now: string): Promise<void>;
  /** The workspace's grants not revoked, newest first, with the client's name and the user's email. */
  listGrants(workspaceId: string): Promise<ListedOAuthGrant[]>;
}

/** One repository per aggregate. */
export interface Repositories {
  users: UsersRepository;
  workspaces: WorkspacesRepository;
  brand: BrandRepository;
  keys: KeysRepository;
  tokens: TokensRepository;
  campaigns: CampaignsRepository;
  audit: AuditRepository;
  settings: SettingsRepository;
  webhooks: WebhooksRepository;
  deliveries: DeliveriesRepository;
  keyNotices: KeyNoticesRepository;
  email: EmailRepository;
  emailQueue: EmailQueueRepository;
  accountTokens: AccountTokensRepository;
  oauth: OAuthRepository;
}

export type RepositoryName = keyof Repositories;

/**
 * Some repositories and the one transaction unit over them: what a use case declares it needs
 * (`UnitOfWork<'keys' | 'audit'>`). `tx` holds the same repositories bound to the transaction; a
 * transaction begun inside one joins it.
 */
export type UnitOfWork<Name extends RepositoryName = RepositoryName> = Pick<Repositories, Name> &
  Transactional<Name>;

interface Transactional<Name extends RepositoryName> {
  /** Runs `work` in one transaction: all of its writes land, or none do. */
  transaction<T>(work: (tx: UnitOfWork<Name>) => Promise<T>): Promise<T>;
}

/**
 * Persistence, and nothing else: no ids, clocks or rules are decided here. Every write that changes what
 * the read operation returns is announced on `changes`, to this process at once and to other processes
 * sharing the database within a second; which writes those are is declared where the repositories are
 * assembled (src/store/kysely-store.ts).
 */
export interface Store extends UnitOfWork {
  readonly kind: 'sqlite' | 'postgres';
  readonly changes: ChangeFeed;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
