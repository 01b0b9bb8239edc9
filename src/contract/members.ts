import { z } from 'zod';
import { ROLES } from '../core/roles.js';
import { EMAIL_STATUSES } from './email.js';

/** The pending invite of a member whose account has no password yet (README "Account email"). */
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

export const addedMemberSchema = memberSchema
  .extend({
    temporary_password_set: z
      .boolean()
      .describe('True when the request’s temporary password was set on the account'),
  })
  .meta({ id: 'AddedMember' });
export type AddedMember = z.output<typeof addedMemberSchema>;
