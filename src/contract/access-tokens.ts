import { z } from 'zod';
import { MAX_TOKEN_DAYS } from '../core/inputs.js';
import { credentialStatusSchema } from './credential-status.js';

/** A personal access token as listings show it: never the token itself. */
export const accessTokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    status: credentialStatusSchema,
    created_at: z.string(),
    expires_at: z.string(),
    revoked_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
  })
  .meta({ id: 'AccessToken' });
export type AccessToken = z.output<typeof accessTokenSchema>;

export const accessTokenListSchema = z.object({ tokens: z.array(accessTokenSchema) });

export const newAccessTokenSchema = z.strictObject({
  name: z.string(),
  expires_in_days: z.number().int().min(1).max(MAX_TOKEN_DAYS).default(30),
});

/** The create call's answer: the only time the token itself is shown. */
export const createdAccessTokenSchema = accessTokenSchema.extend({ token: z.string() });
export type CreatedAccessToken = z.output<typeof createdAccessTokenSchema>;
