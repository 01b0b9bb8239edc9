import { z } from 'zod';

/** What the routes taking an account email's link take: its token and the password chosen with it. */
export const linkRequestSchema = z.strictObject({
  token: z.string().max(200).describe('The `token` parameter of the link in the email'),
  password: z.string().max(1024).describe('The new password: at least 12 characters'),
});

/** POST /auth/v1/password-reset: the address to email a reset link to, if it has an account. */
export const passwordResetRequestSchema = z.strictObject({ email: z.string().max(320) });

export const passwordResetAcceptedSchema = z
  .object({ message: z.string() })
  .meta({ id: 'PasswordResetAccepted' });
