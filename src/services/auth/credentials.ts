import DataLoader from 'dataloader';
import type { Clock } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import {
  KEY_KINDS,
  type KeyKind,
  type KeyKindId,
  keyKindOfToken,
  mapKeyKinds,
  type Surface,
} from '../../core/key-kinds.js';
import { brandKeyStatus, type BrandKeyTimes, lifecycleTimes } from '../../core/key-lifecycle.js';
import type { KeySigners, SignedKeyFacts } from '../../core/key-signature.js';
import { can, type Permission } from '../../core/roles.js';
import { hashKey, KEY_FORMATS, looksLikeJwt } from '../../core/secret-keys.js';
import type { KeyCredential, KeysRepository, MembershipRecord } from '../../store/store.js';
import { FeedCache, type MaybePromise } from '../shared/feed-cache.js';
import type { CacheStats } from '../metrics/metrics.js';
import {
  type SignatureStats,
  SignedKeys,
  type SignedKeysLog,
  type SignedKeysStore,
} from '../keys/signed-keys.js';
import type { UserPrincipal, UserTokenVerifier } from './tokens.js';
import type { UsageRecorder } from './usage.js';

/** A caller proven by a workspace key of some kind: no secret, only what the checks need. */
export interface KeyPrincipal extends BrandKeyTimes {
  kind: 'key';
  keyKind: KeyKindId;
  id: string;
  workspaceId: string;
  /** The key's first characters, which refusals name. */
  prefix: string;
  /** When the key expires, as the Brand-Key-Expires header says it (RFC 3339); null for a key that never does. */
  expiresHeader: string | null;
}

/**
 * Who made a request: a user (by sign-in session, personal access token or identity provider token, see
 * src/services/auth/tokens.ts) or a workspace key of a kind in src/core/key-kinds.ts.
 */
export type Principal = UserPrincipal | KeyPrincipal;

/** The credentials a request carries. */
export interface PresentedCredentials {
  /** The Authorization header, as sent. */
  authorization: string | undefined;
  /** The console's session cookie, where the surface takes it. */
  sessionCookie?: string | undefined;
}

/**
 * The workspace a request names, read from its body when asked: a signed key of that workspace that the cache
 * does not hold is verified by its signature instead of a lookup (src/services/keys/signed-keys.ts).
 */
export type WorkspaceClaim = () => Promise<string | undefined>;

/** How a surface refuses what it does not take, and what it takes a token of no key prefix for. */
interface SurfaceRules {
  /** No Authorization header (and no session cookie where one is taken). */
  missing(): AppError;
  /** An Authorization header that is not `Bearer <token>`. */
  notBearer(): AppError;
  /** Whether the console's session cookie stands in for a missing Authorization header. */
  takesSessionCookie: boolean;
  /** A token of no key prefix that is no JWT: a malformed key of this kind, or an invalid user token. */
  unprefixed: KeyKindId | 'user';
  /** A user's token (a JWT) where the surface takes only keys; undefined where it takes users. */
  userToken?: () => AppError;
  /** A key of a kind the surface does not take, refused before it is looked up. */
  otherKind(kind: KeyKind): AppError;
}

const SURFACES: Record<Surface, SurfaceRules> = {
  read: {
    missing: () => new AppError('missing_key'),
    notBearer: () => new AppError('malformed_key', { reason: 'scheme' }),
    takesSessionCookie: false,
    unprefixed: 'brand',
    otherKind: (kind) =>
      new AppError(
        'malformed_key',
        { reason: 'wrong_kind', label: kind.label, prefix: kind.prefix },
        { advice: 'Send a brand read key of the workspace: create one in Settings → Agent Access.' },
      ),
  },
  management: {
    missing: () => new AppError('missing_token', { reason: 'header' }),
    notBearer: () => new AppError('invalid_token', { reason: 'scheme' }),
    takesSessionCookie: true,
    unprefixed: 'user',
    otherKind: (kind) => new AppError(KEY_KINDS[kind.id].problems.notAllowed),
  },
  // Transactional email keys only: no user, no other key (docs/email.md "Transactional email").
  email: {
    missing: () => new AppError('email_key_missing'),
    notBearer: () => new AppError('email_key_invalid', { reason: 'scheme' }),
    takesSessionCookie: false,
    unprefixed: 'email',
    userToken: () => new AppError('email_key_invalid', { reason: 'user_token' }),
    otherKind: (kind) =>
      new AppError('email_key_invalid', { reason: 'wrong_kind', label: kind.label, prefix: kind.prefix }),
  },
};

/** Verified keys kept in memory, of the kinds whose row says `cached`. */
const MAX_CACHED_KEYS = 10_000;

/** `Bearer <token>`: the scheme is case-insensitive (RFC 9110 §11.1), the token one word. */
export function bearerToken(header: string): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header)?.[1];
}

/**
 * Key lookups of one kind, batched: the misses of every request whose bytes arrived in one turn of the event
 * loop go to the store as one query (setImmediate runs once that turn's I/O is handled), which costs far less
 * per key than a query each (docs/operations.md "Operations"). Each caller gets its own key, or undefined; a failed query
 * fails each of them with its error. Nothing is memoized here: FeedCache is the cache, kept exact by the
 * change feed.
 */
function keyLookup(keys: KeysRepository, kind: KeyKindId): DataLoader<string, KeyCredential | undefined> {
  return new DataLoader(
    async (hashes) => {
      const found = new Map((await keys.findByHashes(kind, hashes)).map((key) => [key.keyHash, key]));
      return hashes.map((hash) => found.get(hash));
    },
    { cache: false, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );
}

/** The principal of a key its signature verified (src/services/keys/signed-keys.ts): active, and not revoked. */
function signedKeyPrincipal(
  keyKind: KeyKindId,
  token: string,
  workspaceId: string,
  { id, expiresAt }: SignedKeyFacts,
): KeyPrincipal {
  return {
    kind: 'key',
    keyKind,
    id,
    workspaceId,
    prefix: KEY_FORMATS[keyKind].hint(token).prefix,
    expiresHeader: new Date(expiresAt).toISOString(),
    expiresAt,
    revokedAt: null,
  };
}

function toKeyPrincipal(keyKind: KeyKindId, record: KeyCredential): KeyPrincipal {
  // Each timestamp parsed once: a read that misses the key cache pays for this.
  const { expiresAt, revokedAt } = lifecycleTimes(record);
  return {
    kind: 'key',
    keyKind,
    id: record.id,
    workspaceId: record.workspaceId,
    prefix: record.prefix,
    expiresHeader: record.expiresAt === null ? null : new Date(expiresAt).toISOString(),
    expiresAt,
    revokedAt,
  };
}

/**
 * Refuses a key on a route that its kind's permissions do not cover (a route of no permission, such as the
 * caller's own tokens, takes no key). A user passes: a role is judged per workspace, by `authorize`.
 */
export function requireKeyPermission(principal: Principal, permission: Permission | undefined): void {
  if (principal.kind !== 'key') return;
  const kind: KeyKind = KEY_KINDS[principal.keyKind];
  if (permission === undefined || !kind.permissions.includes(permission))
    throw new AppError(KEY_KINDS[principal.keyKind].problems.notAllowed);
}

/**
 * Authentication and authorization for every surface (docs/reading-brand-context.md "Errors" and docs/management-api.md "Management API"): who a request's
 * credential is, and whether it may do something in a workspace. Keys are checked format → checksum →
 * cache → signature or store → lifecycle; expiry and revocation are judged against the clock on every request,
 * never cached as a verdict. A cached key is answered synchronously: the read operation's hot path awaits
 * nothing.
 */
export class Credentials {
  private readonly keys: FeedCache<KeyPrincipal>;
  private readonly signed: SignedKeys;
  private readonly lookups: Record<KeyKindId, DataLoader<string, KeyCredential | undefined>>;

  /**
   * @param signing the signers of keys (none: every key the cache misses is looked up), and where a key that
   *   its signature verified but that has no row is reported (src/services/keys/signed-keys.ts).
   */
  constructor(
    private readonly store: SignedKeysStore,
    private readonly clock: Clock,
    private readonly tokens: UserTokenVerifier,
    signing: { signers: KeySigners; log: SignedKeysLog },
    private readonly usage?: UsageRecorder,
  ) {
    this.keys = new FeedCache(store.changes, { maxEntries: MAX_CACHED_KEYS }, (key) => key.workspaceId);
    this.signed = new SignedKeys(store, clock, signing.signers, signing.log, (hash) => {
      this.keys.delete(hash);
    });
    this.lookups = mapKeyKinds((kind) => keyLookup(store.keys, kind.id));
  }

  /**
   * The principal behind the credentials of a request made to `surface`; throws its 401 (or 403) problem.
   * @param claim the workspace the request names, where it can be read: spares a signed key's lookup.
   */
  resolve(
    presented: PresentedCredentials,
    surface: Surface,
    claim?: WorkspaceClaim,
  ): MaybePromise<Principal> {
    const rules = SURFACES[surface];
    const header = presented.authorization;
    if (header === undefined || header === '') {
      const cookie = rules.takesSessionCookie ? presented.sessionCookie : undefined;
      if (cookie === undefined || cookie === '') throw rules.missing();
      return this.tokens.verify(cookie);
    }
    const token = bearerToken(header);
    if (token === undefined) throw rules.notBearer();
    const kind =
      keyKindOfToken(token) ??
      (rules.unprefixed === 'user' || looksLikeJwt(token) ? undefined : KEY_KINDS[rules.unprefixed]);
    if (kind === undefined) {
      if (rules.userToken) throw rules.userToken();
      return this.tokens.verify(token);
    }
    if (!kind.surfaces.includes(surface)) throw rules.otherKind(kind);
    return this.verifyKey(kind.id, token, claim);
  }

  private verifyKey(
    keyKind: KeyKindId,
    token: string,
    claim: WorkspaceClaim | undefined,
  ): MaybePromise<KeyPrincipal> {
    const hash = hashKey(token);
    // The format (checksum included) is checked on the way to the store: a key cached under this hash is this
    // very token, checked when it was loaded, so a cached read skips the check. (A load throws at once, so a
    // malformed token is refused as it always was, before any lookup.)
    const load = (): Promise<KeyPrincipal | undefined> => {
      if (KEY_FORMATS[keyKind].formatProblem(token) !== undefined)
        throw new AppError(KEY_KINDS[keyKind].problems.malformed, { reason: 'format' });
      const lookup = () =>
        this.lookups[keyKind].load(hash).then((record) => record && toKeyPrincipal(keyKind, record));
      if (claim === undefined || !this.signed.ready(keyKind)) return lookup();
      return claim().then((workspaceId) =>
        workspaceId === undefined ? lookup() : this.bySignature(keyKind, token, hash, workspaceId, lookup),
      );
    };
    const key = KEY_KINDS[keyKind].cached ? this.keys.get(hash, load) : load();
    return key instanceof Promise
      ? key.then((loaded) => this.judge(keyKind, loaded))
      : this.judge(keyKind, key);
  }

  /** The key as its signature proves it for `workspaceId` (src/services/keys/signed-keys.ts), or else as `lookup` finds it. */
  private bySignature(
    keyKind: KeyKindId,
    token: string,
    hash: string,
    workspaceId: string,
    lookup: () => Promise<KeyPrincipal | undefined>,
  ): MaybePromise<KeyPrincipal | undefined> {
    const principalOf = (facts: SignedKeyFacts | undefined) =>
      facts === undefined ? lookup() : signedKeyPrincipal(keyKind, token, workspaceId, facts);
    const facts = this.signed.verify(keyKind, token, hash, workspaceId, this.clock.now());
    return facts instanceof Promise ? facts.then(principalOf) : principalOf(facts);
  }

  private judge(keyKind: KeyKindId, key: KeyPrincipal | undefined): KeyPrincipal {
    const { problems } = KEY_KINDS[keyKind];
    if (!key) throw new AppError(problems.unknown, { reason: 'unknown' });
    const now = this.clock.now();
    switch (brandKeyStatus(key, now)) {
      case 'expired':
        throw new AppError(problems.expired, {
          prefix: key.prefix,
          expiresAt: new Date(key.expiresAt).toISOString(),
        });
      case 'revoked':
        throw new AppError(problems.revoked, { prefix: key.prefix });
      case 'active':
        this.usage?.used(keyKind, key.id, now);
        return key;
    }
  }

  /**
   * Whether `principal` may do `permission` in `workspaceId`: a key in its own workspace only and within
   * its kind's permissions, a user by the role of their membership. A workspace that does not exist is 404,
   * one the caller may not reach 403. Answers a user's membership; a key in its workspace at once.
   */
  authorize(
    principal: Principal,
    workspaceId: string,
    permission: Permission,
  ): MaybePromise<MembershipRecord | null> {
    if (principal.kind !== 'key') return this.authorizeMember(principal.user.id, workspaceId, permission);
    requireKeyPermission(principal, permission);
    if (principal.workspaceId === workspaceId) return null;
    const reason = KEY_KINDS[principal.keyKind].problems.otherWorkspace;
    return this.refuse(workspaceId, () => new AppError('workspace_forbidden', { reason, workspaceId }));
  }

  private async authorizeMember(
    userId: string,
    workspaceId: string,
    permission: Permission,
  ): Promise<MembershipRecord> {
    const membership = await this.store.workspaces.getMember(workspaceId, userId);
    if (!membership) {
      return this.refuse(
        workspaceId,
        () =>
          new AppError(
            'workspace_forbidden',
            { reason: 'not_member', workspaceId },
            {
              advice:
                'Check the workspace id, or ask an owner or admin of that workspace to add your account as a member.',
            },
          ),
      );
    }
    if (!can(membership.role, permission))
      throw new AppError('insufficient_role', { reason: 'permission', role: membership.role, permission });
    return membership;
  }

  /** 404 for a workspace that does not exist, `forbidden` for one the caller may not reach. */
  private async refuse(workspaceId: string, forbidden: () => AppError): Promise<never> {
    const exists = (await this.store.workspaces.get(workspaceId)) !== undefined;
    throw exists ? forbidden() : new AppError('workspace_not_found', { workspaceId });
  }

  /** Its key cache's counts, for /metrics. */
  get cacheStats(): CacheStats {
    return this.keys.stats;
  }

  /** Whether a key of `kind` that the cache misses is verified by its signature now, rather than looked up. */
  verifiesBySignature(kind: KeyKindId): boolean {
    return this.signed.ready(kind);
  }

  /** What verifying by signature counted, for /metrics. */
  get signatureStats(): SignatureStats {
    return this.signed.stats;
  }

  /** Stops listening to the change feed, and lets a confirmation of signed keys under way finish. */
  close(): Promise<void> {
    this.keys.close();
    return this.signed.close();
  }
}
