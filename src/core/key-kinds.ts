import type { ProblemCode } from './errors.js';
import type { Permission } from './roles.js';

/**
 * Where a credential is presented: the read operation (`POST /functions/v1/brand-agent`), the management
 * API (every route under /api/v1, the campaign API included), or the transactional email API (/email/v1).
 */
export type Surface = 'read' | 'management' | 'email';

/**
 * Every kind of workspace key, as data: the services, routes, CLI commands and console derive what they need
 * from its row. All kinds share one life (shown once, stored as a hash, listed by prefix, revoked at once);
 * what tells them apart is here: who creates them, how long they live, where they are taken. Adding a kind
 * is one row plus the surface that accepts it (docs/architecture.md, "Add a key kind").
 *
 * Browser-safe (no Node imports): the console imports this table too.
 */
export interface KeyKind {
  readonly id: KeyKindId;
  /** How code names the kind: operationIds (`listBrandKeys`) and schema ids. */
  readonly codeName: string;
  /** The tag grouping its routes in the API reference (/openapi.json, /docs). */
  readonly apiTag: string;
  /** What every key of the kind starts with; secret scanners and redaction know it (src/core/secret-keys.ts). */
  readonly prefix: string;
  /** The prefix of the key's record id (`bk_…`), which is no secret. */
  readonly idPrefix: string;
  /** How details, errors and summaries name one key. */
  readonly label: string;
  /** The target type of its audit events (`brand_key.created`, …). */
  readonly auditTarget: string;
  /** The key collection under /api/v1/workspaces/{id}, and the console's route to it. */
  readonly collection: string;
  /** The CLI command that manages the kind (`brand-context keys …`). */
  readonly command: string;
  /** Where integrations usually keep the key, as the CLI's hints name it. */
  readonly envVar: string;
  /** What the key is for, told to whoever creates one. */
  readonly purpose: string;
  /** A request that answers 200 with a working key: rotation's check of a replacement. */
  readonly testRequest: string;
  /**
   * Who creates, revokes and rotates keys of the kind: a workspace's owners and admins (API, console, CLI),
   * or only the operator with the CLI, the workspace seeing them read-only (transactional keys "obtained
   * from support").
   */
  readonly managedBy: 'workspace' | 'operator';
  /**
   * What a workspace's users need to list the keys (API, console): `keys.read` for the kinds Settings →
   * Agent Access manages, the permission of the page that shows them read-only for the operator's.
   */
  readonly listPermission: Permission;
  /** How long a key lives unless told otherwise; null: until revoked (an expiry may still be asked for). */
  readonly lifetimeDays: number | null;
  /** Where the key is accepted; on another surface it is refused before it is looked up. */
  readonly surfaces: readonly Surface[];
  /**
   * Verified keys of the kind are kept in memory (the read operation's hot path), so the store announces
   * their creation and revocation on its change feed.
   */
  readonly cached: boolean;
  /**
   * What the key may do in its own workspace, and so which routes of its surfaces accept it: those whose
   * permission is one of these (the read operation's is `brand.read`).
   */
  readonly permissions: readonly Permission[];
  /** The problem each failed check answers. */
  readonly problems: {
    /** Not of the kind's shape, or a wrong checksum: refused without touching the database. */
    readonly malformed: ProblemCode;
    readonly unknown: ProblemCode;
    readonly expired: ProblemCode;
    readonly revoked: ProblemCode;
    /** The workspace has no key of this id (revoke, rotate). */
    readonly notFound: ProblemCode;
    /** The key was sent to a route its permissions do not cover, or to a surface that does not take it. */
    readonly notAllowed: ProblemCode;
    /** Which detail of 403 `workspace_forbidden` (src/core/errors.ts) refuses it in another workspace. */
    readonly otherWorkspace: string;
  };
}

export type KeyKindId = 'brand' | 'api' | 'email';

export const KEY_KINDS = {
  brand: {
    id: 'brand',
    codeName: 'BrandKey',
    apiTag: 'brand keys',
    prefix: 'brk_',
    idPrefix: 'bk',
    label: 'brand read key',
    auditTarget: 'brand_key',
    collection: 'brand-keys',
    command: 'keys',
    envVar: 'BRAND_READ_KEY',
    purpose: 'It reads this workspace’s brand context (POST /functions/v1/brand-agent) and nothing else.',
    testRequest: 'POST /functions/v1/brand-agent',
    managedBy: 'workspace',
    listPermission: 'keys.read',
    lifetimeDays: 90,
    surfaces: ['read'],
    cached: true,
    permissions: ['brand.read'],
    problems: {
      malformed: 'malformed_key',
      unknown: 'invalid_key',
      expired: 'key_expired',
      revoked: 'key_revoked',
      notFound: 'key_not_found',
      notAllowed: 'brand_key_not_allowed',
      otherWorkspace: 'brand_key',
    },
  },
  api: {
    id: 'api',
    codeName: 'ApiKey',
    apiTag: 'workspace API keys',
    prefix: 'wsk_',
    idPrefix: 'ak',
    label: 'workspace API key',
    auditTarget: 'api_key',
    collection: 'api-keys',
    command: 'api-keys',
    envVar: 'BRAND_CONTEXT_API_KEY',
    purpose: 'It reads and writes this workspace’s campaign drafts and nothing else.',
    testRequest: 'GET /api/v1/workspaces/<id>/campaigns',
    managedBy: 'workspace',
    listPermission: 'keys.read',
    lifetimeDays: 90,
    surfaces: ['management'],
    cached: false,
    permissions: ['campaigns.read', 'campaigns.write', 'campaigns.schedule'],
    problems: {
      malformed: 'api_key_invalid',
      unknown: 'api_key_invalid',
      expired: 'api_key_expired',
      revoked: 'api_key_revoked',
      notFound: 'api_key_not_found',
      notAllowed: 'api_key_not_allowed',
      otherWorkspace: 'api_key',
    },
  },
  email: {
    id: 'email',
    codeName: 'EmailKey',
    apiTag: 'transactional email keys',
    prefix: 'tek_',
    idPrefix: 'ek',
    label: 'transactional email key',
    auditTarget: 'email_key',
    collection: 'email-keys',
    command: 'email-keys',
    envVar: 'BRAND_CONTEXT_EMAIL_KEY',
    purpose: 'It sends this workspace’s transactional email (POST /email/v1/messages) and nothing else.',
    testRequest: 'GET /email/v1/messages?limit=1',
    managedBy: 'operator',
    listPermission: 'email.read',
    lifetimeDays: null,
    surfaces: ['email'],
    cached: false,
    permissions: ['email.send'],
    problems: {
      malformed: 'email_key_invalid',
      unknown: 'email_key_invalid',
      expired: 'email_key_expired',
      revoked: 'email_key_revoked',
      notFound: 'email_key_not_found',
      notAllowed: 'email_key_not_allowed',
      otherWorkspace: 'email_key',
    },
  },
} as const satisfies Record<KeyKindId, KeyKind>;

export const KEY_KIND_LIST: readonly KeyKind[] = Object.values(KEY_KINDS);

/** One value per kind, made from its row: how other layers keep per-kind things without a second table. */
export function mapKeyKinds<V>(make: (kind: KeyKind) => V): Record<KeyKindId, V> {
  return Object.fromEntries(KEY_KIND_LIST.map((kind) => [kind.id, make(kind)])) as Record<KeyKindId, V>;
}

/** The label as a heading or a sentence starts it: "Brand read key". */
export function capitalizedLabel(kind: KeyKind): string {
  return kind.label.charAt(0).toUpperCase() + kind.label.slice(1);
}

/** The kind whose prefix `token` starts with, if any: what a bearer token claims to be. */
export function keyKindOfToken(token: string): KeyKind | undefined {
  return KEY_KIND_LIST.find((kind) => token.startsWith(kind.prefix));
}
