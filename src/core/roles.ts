import { KEY_KINDS } from './key-kinds.js';

/**
 * Workspace roles and what each may do (docs/management-api.md "Management API"), as data: the one table every route consults.
 * Brand read keys have no role at all: they can only call the read operation. Workspace API keys hold
 * the campaign permissions of their one workspace, and nothing else.
 */
export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

const EVERYONE = ['owner', 'admin', 'member'] as const;
const MANAGERS = ['owner', 'admin'] as const;

export const PERMISSIONS = {
  'workspace.read': EVERYONE,
  // The workspace's settings: its name (a change of the brand's) and whether brand changes need review.
  'workspace.write': MANAGERS,
  'brand.read': EVERYONE,
  'brand.write': MANAGERS,
  // With review on (docs/brand-versions.md "Review"): everyone edits the draft; owners and admins publish or discard it.
  'brand.draft.write': EVERYONE,
  'brand.publish': MANAGERS,
  // Members see Settings → Agent Access read-only: names, prefixes, status and expiry, never a secret.
  'keys.read': EVERYONE,
  'keys.write': MANAGERS,
  'members.read': EVERYONE,
  'members.write': MANAGERS,
  'audit.read': MANAGERS,
  'campaigns.read': EVERYONE,
  'campaigns.write': EVERYONE,
  'campaigns.schedule': MANAGERS,
  // Endpoints hold signing secrets and reveal what happens in the workspace: managers only, reading included.
  'webhooks.read': MANAGERS,
  'webhooks.write': MANAGERS,
  // /email/v1 takes transactional email keys only: no role sends through it.
  'email.send': [],
  // Settings → Email: email keys (read-only), senders, the message log and mailbox, suppressions.
  'email.read': MANAGERS,
  'email.write': MANAGERS,
  // Apps connected with OAuth (docs/oauth.md "Grants"): everyone sees and revokes their own; those who may
  // revoke keys (keys.write), everyone's.
  'oauth_grants.read': EVERYONE,
  'oauth_grants.revoke': EVERYONE,
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

/** What a workspace API key may do in its workspace: its row of src/core/key-kinds.ts says. */
export const API_KEY_PERMISSIONS: readonly Permission[] = KEY_KINDS.api.permissions;

export function can(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

/** Whether `member` is the only owner among `members`: a workspace keeps one, so it cannot be removed. */
export function isOnlyOwner(member: { role: Role }, members: readonly { role: Role }[]): boolean {
  return member.role === 'owner' && members.filter((other) => other.role === 'owner').length === 1;
}

/** Owners manage everyone; admins manage everyone but owners (they can neither add nor remove one). */
export function canManageMember(actor: Role, target: Role): boolean {
  return actor === 'owner' || (actor === 'admin' && target !== 'owner');
}
