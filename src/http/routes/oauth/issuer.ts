import type { AppServices } from '../../context.js';

/**
 * The OAuth issuer: PUBLIC_URL (or, without it, the address the service listens on), without a trailing slash.
 * Every URL of the authorization server and the resource `/mcp` is made from it (docs/oauth.md "Endpoints").
 */
export function oauthIssuer(services: Pick<AppServices, 'accountMail'>): string {
  return services.accountMail.publicUrl().replace(/\/+$/, '');
}
