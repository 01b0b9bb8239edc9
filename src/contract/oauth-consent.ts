import { z } from 'zod';
import { ROLES } from '../core/roles.js';

/**
 * What the console's consent page (`/connect`) and Settings → Agent Access exchange with the service for
 * OAuth (docs/connect-ai-client.md "Connect an AI client"): the authorization request as the consent page
 * shows it, the user's decision, and the grants a workspace has given.
 */

/** GET /api/v1/oauth/authorization: the request of `/oauth/authorize`, checked, as the consent page shows it. */
export const oauthAuthorizationSchema = z.object({
  client: z.object({
    id: z.string(),
    name: z.string(),
    redirect_host: z.string().describe('The host the browser is sent back to, for the user to recognise'),
    source: z.enum(['registered', 'metadata_document']),
  }),
  scopes: z.array(z.string()).describe('The scopes asked for, or every scope when none was asked'),
  workspaces: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      role: z.enum(ROLES),
      scopes: z.array(z.string()).describe('The asked scopes this role may grant'),
    }),
  ),
});
export type OAuthAuthorization = z.output<typeof oauthAuthorizationSchema>;

/** The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2), as sent. */
export const AUTHORIZATION_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;
export type AuthorizationParameters = Partial<Record<(typeof AUTHORIZATION_PARAMETERS)[number], string>>;

/** The parameters as strings, each optional: the service judges what is missing. */
export const authorizationParametersShape = Object.fromEntries(
  AUTHORIZATION_PARAMETERS.map((name) => [name, z.string().optional()]),
) as Record<(typeof AUTHORIZATION_PARAMETERS)[number], z.ZodOptional<z.ZodString>>;

/** POST /api/v1/oauth/authorization: the user's answer, with the `/oauth/authorize` request it answers. */
export const oauthDecisionSchema = z.object({
  ...authorizationParametersShape,
  workspace_id: z.string(),
  scopes: z.array(z.string()),
  decision: z.enum(['allow', 'deny']),
});
export type OAuthDecision = z.input<typeof oauthDecisionSchema>;

/** Where the browser goes next: the client's redirect_uri with `code` or `error`, `state` and `iss`. */
export const oauthRedirectSchema = z.object({ redirect_to: z.string() });

/** An app a user connected to a workspace (a grant), as Settings → Agent Access lists it. */
export const oauthGrantSchema = z.object({
  id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  user_id: z.string(),
  user_email: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type OAuthGrant = z.output<typeof oauthGrantSchema>;

export const oauthGrantListSchema = z.object({ grants: z.array(oauthGrantSchema) });
