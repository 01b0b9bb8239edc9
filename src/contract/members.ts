import { z } from 'zod';
import { ROLES } from '../core/roles.js';

export const memberSchema = z
  .object({ user_id: z.string(), email: z.string(), role: z.enum(ROLES), created_at: z.string() })
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
