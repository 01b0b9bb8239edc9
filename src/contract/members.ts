import { z } from 'zod';
import { KEY_KINDS } from '../core/key-kinds.js';
import { ROLES } from '../core/roles.js';
import { EMAIL_STATUSES } from './email.js';
import { KEY_VIEW_SCHEMAS } from './keys.js';
import { webhookSchema } from './webhooks.js';

/** The pending invite of a member whose account has no password yet (docs/account-email.md "Account email"). */
export const memberInviteSchema = z
  .object({
    sent_at: z.string(),
    expires_at: z.string().describe('When its link stops working; resend the invite for a new one'),
    delivery: z
      .enum(EMAIL_STATUSES)
      .nullable()
      .describe('What became of the invite email: queued, deferred, sent, captured, bounced or failed'),
    delivery_detail: z
      .string()
      .nullable()
      .describe(
        'The relay’s last answer (why it bounced or failed), or why nothing was sent; null while queued',
      ),
  })
  .meta({ id: 'MemberInvite' });
export type MemberInvite = z.output<typeof memberInviteSchema>;

export const memberSchema = z
  .object({
    user_id: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    created_at: z.string(),
    invite: memberInviteSchema
      .nullable()
      .describe('The newest invite of an account without a password, expired or not; null otherwise'),
  })
  .meta({ id: 'Member' });
export type Member = z.output<typeof memberSchema>;

export const memberListSchema = z.object({ members: z.array(memberSchema) });

/** POST …/members: who to add, as what; an invite is emailed unless a temporary password is given. */
export const newMemberSchema = z.strictObject({
  email: z.string(),
  role: z.enum(ROLES),
  password: z
    .string()
    .optional()
    .describe(
      'Temporary password (at least 12 characters) instead of an invite: share it safely; the member can replace it with "Forgot password?"',
    ),
});

export const addedMemberSchema = memberSchema
  .extend({
    temporary_password_set: z
      .boolean()
      .describe('True when the request’s temporary password was set on the account'),
  })
  .meta({ id: 'AddedMember' });
export type AddedMember = z.output<typeof addedMemberSchema>;

/**
 * What a member created that still works (docs/management-api.md "Management API", removing a member): their active brand read
 * keys and workspace API keys and their enabled webhook endpoints. Before a removal, what `revoke_credentials`
 * would revoke and disable; after one made with it, what it did.
 */
export const memberCredentialsSchema = z
  .object({
    brand_keys: z.array(KEY_VIEW_SCHEMAS.brand).describe(`Active ${KEY_KINDS.brand.label}s they created`),
    api_keys: z.array(KEY_VIEW_SCHEMAS.api).describe(`Active ${KEY_KINDS.api.label}s they created`),
    webhooks: z.array(webhookSchema).describe('Enabled webhook endpoints they created'),
  })
  .meta({ id: 'MemberCredentials' });
export type MemberCredentials = z.output<typeof memberCredentialsSchema>;
