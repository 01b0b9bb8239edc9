import { z } from 'zod';

/** What signing in takes: POST /auth/v1/token and the console's POST /auth/v1/session. */
export const signInRequestSchema = z.object({ email: z.string().max(320), password: z.string().max(1024) });

/** A user token from sign-in (POST /auth/v1/token). */
export const sessionSchema = z
  .object({ access_token: z.string(), token_type: z.literal('bearer'), expires_in: z.number().int() })
  .meta({ id: 'Session' });
export type IssuedSession = z.output<typeof sessionSchema>;

/** The console's session (/auth/v1/session): its token stays in an HttpOnly cookie, never in this body. */
export const consoleSessionSchema = z
  .object({
    user: z.object({ id: z.string(), email: z.string() }),
    csrf_token: z.string().describe('Send it as X-CSRF-Token with every write made with the session cookie'),
    expires_in: z.number().int().describe('Seconds the session lasts from sign-in'),
    install_dir: z
      .string()
      .nullable()
      .describe(
        'Where the service is installed on the machine that runs it (the directory holding dist/cli/main.js), for MCP client configurations; null when not known',
      ),
  })
  .meta({ id: 'ConsoleSession' });
export type ConsoleSession = z.output<typeof consoleSessionSchema>;

/**
 * GET /auth/v1/session/status: whether anyone is signed in, always 200, so that the console can ask on its
 * first load without the browser logging a 401 for a visitor who simply has not signed in yet.
 */
export const consoleSessionStatusSchema = z
  .discriminatedUnion('signed_in', [
    consoleSessionSchema.extend({ signed_in: z.literal(true) }),
    z.object({
      signed_in: z
        .literal(false)
        .describe('No session cookie, or one that expired, was revoked or is not valid: sign in'),
    }),
  ])
  .meta({ id: 'ConsoleSessionStatus' });
export type ConsoleSessionStatus = z.output<typeof consoleSessionStatusSchema>;
