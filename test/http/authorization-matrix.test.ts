import { createHash, randomBytes, scryptSync } from 'node:crypto';
import { METHODS } from 'node:http';
import type { HTTPMethods, LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { expect, it } from 'vitest';
import { newId } from '../../src/core/base62.js';
import { PROBLEMS, type ProblemCode } from '../../src/core/errors.js';
import { KEY_KINDS } from '../../src/core/key-kinds.js';
import { API_KEY_PERMISSIONS, can, PERMISSIONS, type Permission, ROLES } from '../../src/core/roles.js';
import { ACCOUNT_LINK_PREFIXES, hashKey } from '../../src/core/secret-keys.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createCampaign } from '../../src/services/campaigns/campaigns.js';
import { createApiKey, createBrandKey } from '../../src/services/keys/keys.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { saveBrandDraft } from '../../src/services/brand/draft.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { findOrCreateUser } from '../../src/services/accounts/workspaces.js';
import type { UserRecord } from '../../src/store/store.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { NEW_PASSWORD } from '#test/support/fixtures/account-email.js';
import {
  capturedEmail,
  type EmailKeys,
  emailKeys,
  message,
  sendEmail,
  suppress,
} from '#test/support/fixtures/email.js';
import { type Fixture as SharedFixture, isoNow, outcome, useFixture } from '#test/support/http-fixture.js';
import { addUser } from '#test/support/users.js';
import { createPersonalToken, issueSession, revokePersonalToken } from '../../src/services/auth/tokens.js';
import { createWebhook, sendWebhookTest } from '../../src/services/webhooks/webhooks.js';
import { decideAuthorization } from '../../src/services/oauth/authorization.js';
import { registerClient as registerOAuthClient } from '../../src/services/oauth/clients.js';

/*
 * Who may call what, kept as data: every route the app registers (ROUTES), every kind of caller (CALLERS)
 * and what each caller gets on each kind of route (EXPECTED). A route added to the app without a row here
 * fails the last test of this file.
 */

const CALLERS = [
  'anonymous',
  'expiredSession',
  'revokedToken',
  'garbageToken',
  'forgedToken',
  'brandKey',
  'otherBrandKey',
  'apiKey',
  'otherApiKey',
  'emailKey',
  'otherEmailKey',
  'owner',
  'admin',
  'member',
  'outsider',
] as const;
type CallerKind = (typeof CALLERS)[number];

const CALLER_NAMES: Record<CallerKind, string> = {
  anonymous: 'no credentials',
  expiredSession: 'an expired user session (past the 1 h TTL)',
  revokedToken: 'a revoked personal access token',
  garbageToken: 'a garbage bearer token',
  forgedToken: 'a user JWT signed with another secret',
  brandKey: 'a brand read key of the target workspace',
  otherBrandKey: 'a brand read key of another workspace',
  apiKey: 'a workspace API key of the target workspace',
  otherApiKey: 'a workspace API key of another workspace',
  emailKey: 'a transactional email key of the target workspace',
  otherEmailKey: 'a transactional email key of another workspace',
  owner: 'an owner of the target workspace',
  admin: 'an admin of the target workspace',
  member: 'a member of the target workspace',
  outsider: 'an owner of another workspace only',
};

/** What a caller gets: the route's success status, or a problem (its status is PROBLEMS[code].status). */
type Outcome = 'ok' | ProblemCode;
type Access =
  'public' | 'methodNotAllowed' | 'read' | 'mcp' | 'account' | 'consoleSession' | 'signOut' | Permission;

/** What a transactional email key may do: call /email/v1, and nothing else. */
const EMAIL_KEY_PERMISSIONS: readonly Permission[] = KEY_KINDS.email.permissions;

function everyCaller(outcome: Outcome): Record<CallerKind, Outcome> {
  return Object.fromEntries(CALLERS.map((caller) => [caller, outcome])) as Record<CallerKind, Outcome>;
}

/**
 * Callers without a valid user token get the same answer on every management route; workspace API keys
 * too, but for the campaign routes (CAMPAIGN_CALLERS).
 */
const WITHOUT_USER = {
  anonymous: 'missing_token',
  expiredSession: 'token_expired',
  revokedToken: 'token_revoked',
  garbageToken: 'invalid_token',
  forgedToken: 'invalid_token',
  brandKey: 'brand_key_not_allowed',
  otherBrandKey: 'brand_key_not_allowed',
  apiKey: 'api_key_not_allowed',
  otherApiKey: 'api_key_not_allowed',
  emailKey: 'email_key_not_allowed',
  otherEmailKey: 'email_key_not_allowed',
} as const satisfies Partial<Record<CallerKind, Outcome>>;

/** On the campaign routes a workspace API key acts in its own workspace only. */
const CAMPAIGN_CALLERS = {
  ...WITHOUT_USER,
  apiKey: 'ok',
  otherApiKey: 'workspace_forbidden',
} as const satisfies Partial<Record<CallerKind, Outcome>>;

const EXPECTED: Record<Access, Record<CallerKind, Outcome>> = {
  public: everyCaller('ok'),
  methodNotAllowed: everyCaller('method_not_allowed'),
  // The console's session lives in a cookie: no bearer credential is one (src/http/routes/auth/session.security.test.ts).
  consoleSession: everyCaller('missing_token'),
  // Signing out is a cookie write: without the session's CSRF token it is refused, whoever asks.
  signOut: everyCaller('csrf_failed'),
  // POST /functions/v1/brand-agent (docs/reading-brand-context.md "Reading brand context"): brand read keys, and members' user tokens.
  read: {
    anonymous: 'missing_key',
    expiredSession: 'token_expired',
    revokedToken: 'token_revoked',
    garbageToken: 'malformed_key',
    forgedToken: 'invalid_token',
    brandKey: 'ok',
    otherBrandKey: 'workspace_forbidden',
    // A workspace API key reaches campaigns only (docs/campaigns.md "Workspace API keys"); the read operation takes brand read keys.
    apiKey: 'malformed_key',
    otherApiKey: 'malformed_key',
    emailKey: 'malformed_key',
    otherEmailKey: 'malformed_key',
    owner: 'ok',
    admin: 'ok',
    member: 'ok',
    outsider: 'workspace_forbidden',
  },
  // /mcp (docs/mcp.md "Remote MCP"): every user and every key that has tools there; which tools each is shown,
  // and that each acts in its own workspace only, is src/http/routes/mcp.security.test.ts's.
  mcp: {
    ...WITHOUT_USER,
    brandKey: 'ok',
    otherBrandKey: 'ok',
    apiKey: 'ok',
    otherApiKey: 'ok',
    owner: 'ok',
    admin: 'ok',
    member: 'ok',
    outsider: 'ok',
  },
  account: { ...WITHOUT_USER, owner: 'ok', admin: 'ok', member: 'ok', outsider: 'ok' },
  'workspace.read': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'ok',
    outsider: 'workspace_forbidden',
  },
  'brand.read': { ...WITHOUT_USER, owner: 'ok', admin: 'ok', member: 'ok', outsider: 'workspace_forbidden' },
  'brand.write': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  // Workspace settings (docs/brand-versions.md "Review"): owners and admins.
  'workspace.write': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  // With review on, everyone edits the brand draft; owners and admins publish or discard it.
  'brand.draft.write': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'ok',
    outsider: 'workspace_forbidden',
  },
  'brand.publish': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  'keys.read': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'ok',
    outsider: 'workspace_forbidden',
  },
  'keys.write': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  'members.read': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'ok',
    outsider: 'workspace_forbidden',
  },
  'members.write': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  'audit.read': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  'campaigns.read': {
    ...CAMPAIGN_CALLERS,
    owner: 'ok',
    admin: 'ok',
    member: 'ok',
    outsider: 'workspace_forbidden',
  },
  'campaigns.write': {
    ...CAMPAIGN_CALLERS,
    owner: 'ok',
    admin: 'ok',
    member: 'ok',
    outsider: 'workspace_forbidden',
  },
  'campaigns.schedule': {
    ...CAMPAIGN_CALLERS,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  // Endpoints hold signing secrets: members may not even read them.
  'webhooks.read': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  'webhooks.write': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  // /email/v1 (docs/email.md "Transactional email"): transactional email keys, each acting in its own workspace;
  // nothing else is even looked up.
  'email.send': {
    ...everyCaller('email_key_invalid'),
    anonymous: 'email_key_missing',
    emailKey: 'ok',
    otherEmailKey: 'ok',
  },
  // Settings → Email: owners and admins only; the keys that send email do not manage it.
  'email.read': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  'email.write': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'insufficient_role',
    outsider: 'workspace_forbidden',
  },
  // Connected apps (docs/oauth.md "Grants"): everyone their own; whose each role sees and revokes is
  // src/http/routes/api/oauth-grants/oauth-grants.security.test.ts's.
  'oauth_grants.read': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'ok',
    outsider: 'workspace_forbidden',
  },
  'oauth_grants.revoke': {
    ...WITHOUT_USER,
    owner: 'ok',
    admin: 'ok',
    member: 'ok',
    outsider: 'workspace_forbidden',
  },
};

/**
 * The shared fixture, plus a draft to read, a webhook endpoint with a delivery, an account that signs in,
 * a transactional email key and allowed sender in each workspace, and messages of the target workspace.
 */
interface MatrixExtra extends EmailKeys {
  /** A draft of the target workspace, for the routes that only read one. */
  campaignId: string;
  /** An endpoint of the target workspace (never disabled) and a delivery of its, for the webhook routes. */
  webhookId: string;
  deliveryId: string;
  signIn: { email: string; password: string };
  /** A message the target workspace sent through /email/v1, and one captured (with its bodies). */
  messageId: string;
  capturedId: string;
}
type Fixture = SharedFixture & MatrixExtra;

interface Built {
  /** Values for the path template's `{…}` placeholders other than `{id}` (the target workspace). */
  params?: Record<string, string>;
  body?: unknown;
  /** Request headers beside Authorization and Content-Type. */
  headers?: Record<string, string>;
  /** A query string, `?` included. */
  query?: string;
}

interface RouteRow {
  method: HTTPMethods;
  /** OpenAPI-style template; `{id}` is the target workspace. */
  path: string;
  access: Access;
  /** Status of a permitted call. */
  ok: number;
  /** Listed in /openapi.json (HEAD variants and the 405 handlers are not). */
  documented?: boolean;
  /** Changes rows when permitted: a refused call must leave every table as it was. */
  mutating?: boolean;
  /** A fresh target (and body) per call, so cells do not depend on one another. */
  build?: (fixture: Fixture, actor: UserRecord) => Promise<Built> | Built;
  /**
   * What a caller gets here instead of its access's cell, once authorized: a transactional email key of
   * another workspace acts in its own, which has neither the target's messages nor its sender.
   */
  overrides?: Partial<Record<CallerKind, Outcome>>;
}

let sequence = 0;
const next = () => String(++sequence);

/** GET routes answer HEAD too (Fastify exposes it); HEAD is checked like its GET, status only. */
function withHead(row: RouteRow): RouteRow[] {
  return [row, { ...row, method: 'HEAD', documented: false }];
}

/** Every method Node parses but POST (and CONNECT, which Node handles itself) is a 405 on the read operation. */
const READ_METHODS_REFUSED = METHODS.filter(
  (method) => method !== 'POST' && method !== 'CONNECT',
) as HTTPMethods[];

const ROUTES: RouteRow[] = [
  ...withHead({ method: 'GET', path: '/healthz', access: 'public', ok: 200 }),
  ...withHead({ method: 'GET', path: '/readyz', access: 'public', ok: 200 }),
  // Open here, as without METRICS_TOKEN; its token guard is test/http/metrics.test.ts's (no key or session counts).
  ...withHead({ method: 'GET', path: '/metrics', access: 'public', ok: 200, documented: false }),
  ...withHead({ method: 'GET', path: '/openapi.json', access: 'public', ok: 200, documented: false }),
  // The API reference (src/http/openapi.ts): its page and its stylesheet.
  ...withHead({ method: 'GET', path: '/docs', access: 'public', ok: 200, documented: false }),
  ...withHead({ method: 'GET', path: '/docs/', access: 'public', ok: 200, documented: false }),
  ...withHead({ method: 'GET', path: '/docs/reference.css', access: 'public', ok: 200, documented: false }),
  {
    method: 'POST',
    path: '/functions/v1/brand-agent',
    access: 'read',
    ok: 200,
    build: (f) => ({ body: { action: 'context', workspace_id: f.workspaceId } }),
  },
  ...READ_METHODS_REFUSED.map((method): RouteRow => ({
    method,
    path: '/functions/v1/brand-agent',
    access: 'methodNotAllowed',
    ok: 405,
    documented: false,
  })),
  // The on-brand check (docs/brand-check.md): the read operation's credentials, an answer computed, nothing stored.
  {
    method: 'POST',
    path: '/functions/v1/brand-check',
    access: 'read',
    ok: 200,
    build: (f) => ({ body: { workspace_id: f.workspaceId, content: { text: 'Hello' } } }),
  },
  ...READ_METHODS_REFUSED.map((method): RouteRow => ({
    method,
    path: '/functions/v1/brand-check',
    access: 'methodNotAllowed',
    ok: 405,
    documented: false,
  })),
  // Remote MCP: JSON-RPC, described in docs/mcp.md rather than the API reference. Stateless: no stream to open
  // with GET, no session to end with DELETE (405 once the caller is known).
  {
    method: 'POST',
    path: '/mcp',
    access: 'mcp',
    ok: 200,
    documented: false,
    build: () => ({
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'matrix', version: '1' },
        },
      },
    }),
  },
  { method: 'GET', path: '/mcp', access: 'mcp', ok: 405, documented: false },
  // A CORS preflight carries no credential: only its Origin is judged.
  { method: 'OPTIONS', path: '/mcp', access: 'public', ok: 204, documented: false },
  { method: 'DELETE', path: '/mcp', access: 'mcp', ok: 405, documented: false },
  ...withHead({
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/mcp',
    access: 'public',
    ok: 200,
    documented: false,
  }),
  // The OAuth authorization server (docs/oauth.md): open to every caller, as OAuth clients expect; bearer
  // credentials are not read there. Who may consent and with what is src/http/routes/api/oauth's.
  ...withHead({
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    access: 'public',
    ok: 200,
    documented: false,
  }),
  {
    method: 'POST',
    path: '/oauth/register',
    access: 'public',
    ok: 201,
    documented: false,
    build: () => ({ body: { client_name: `Matrix app ${next()}`, redirect_uris: [OAUTH_REDIRECT] } }),
  },
  ...withHead({
    method: 'GET',
    path: '/oauth/authorize',
    access: 'public',
    ok: 302,
    documented: false,
    build: async (f) => ({ query: `?${new URLSearchParams(await oauthRequest(f)).toString()}` }),
  }),
  {
    method: 'POST',
    path: '/oauth/token',
    access: 'public',
    ok: 200,
    documented: false,
    build: async (f) => ({ body: await oauthCodeExchange(f) }),
  },
  {
    method: 'POST',
    path: '/oauth/revoke',
    access: 'public',
    ok: 200,
    documented: false,
    build: () => ({ body: { token: 'ort_x' } }),
  },
  // The CORS preflights of browser-based MCP clients.
  ...['/oauth/register', '/oauth/token', '/oauth/revoke'].map((path): RouteRow => ({
    method: 'OPTIONS',
    path,
    access: 'public',
    ok: 204,
    documented: false,
  })),
  { method: 'POST', path: '/auth/v1/token', access: 'public', ok: 200, build: (f) => ({ body: f.signIn }) },
  { method: 'POST', path: '/auth/v1/session', access: 'public', ok: 200, build: (f) => ({ body: f.signIn }) },
  ...withHead({ method: 'GET', path: '/auth/v1/session', access: 'consoleSession', ok: 200 }),
  // Whether anyone is signed in: 200 for every caller, `signed_in` false for all but a session cookie.
  ...withHead({ method: 'GET', path: '/auth/v1/session/status', access: 'public', ok: 200 }),
  { method: 'DELETE', path: '/auth/v1/session', access: 'signOut', ok: 204 },
  // Account email's links (docs/account-email.md "Account email"): a fresh link per call, since each works once.
  {
    method: 'POST',
    path: '/auth/v1/invites/accept',
    access: 'public',
    ok: 200,
    build: async (f) => ({ body: { token: await linkToken(f, 'invite'), password: NEW_PASSWORD } }),
  },
  {
    method: 'POST',
    path: '/auth/v1/password-reset',
    access: 'public',
    ok: 202,
    build: () => ({ body: { email: `forgetful${next()}@example.com` } }),
  },
  {
    method: 'POST',
    path: '/auth/v1/password-reset/confirm',
    access: 'public',
    ok: 204,
    build: async (f) => ({ body: { token: await linkToken(f, 'password_reset'), password: NEW_PASSWORD } }),
  },
  ...withHead({ method: 'GET', path: '/api/v1/workspaces', access: 'account', ok: 200 }),
  {
    method: 'POST',
    path: '/api/v1/workspaces',
    access: 'account',
    ok: 201,
    mutating: true,
    build: () => ({ body: { name: `Matrix workspace ${next()}` } }),
  },
  // The console's consent page (docs/oauth.md "Consent"): any signed-in user. Deny, so that the row needs no
  // membership: Allow's checks are the consent suites'.
  ...withHead({
    method: 'GET',
    path: '/api/v1/oauth/authorization',
    access: 'account',
    ok: 200,
    build: async (f) => ({ query: `?${new URLSearchParams(await oauthRequest(f)).toString()}` }),
  }),
  {
    method: 'POST',
    path: '/api/v1/oauth/authorization',
    access: 'account',
    ok: 200,
    build: async (f) => ({
      body: { ...(await oauthRequest(f)), workspace_id: f.workspaceId, scopes: [], decision: 'deny' },
    }),
  },
  ...withHead({ method: 'GET', path: '/api/v1/tokens', access: 'account', ok: 200 }),
  {
    method: 'POST',
    path: '/api/v1/tokens',
    access: 'account',
    ok: 201,
    mutating: true,
    build: () => ({ body: { name: `matrix ${next()}`, expires_in_days: 7 } }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/tokens/{token_id}',
    access: 'account',
    ok: 200,
    mutating: true,
    build: async (f, actor) => {
      const token = await createPersonalToken(f.deps, actor, {
        name: `to revoke ${next()}`,
        expiresInDays: 7,
      });
      return { params: { token_id: token.id } };
    },
  },
  ...withHead({ method: 'GET', path: '/api/v1/workspaces/{id}', access: 'workspace.read', ok: 200 }),
  // Turning review off, from on with no draft waiting: a change every time it is allowed.
  {
    method: 'PATCH',
    path: '/api/v1/workspaces/{id}',
    access: 'workspace.write',
    ok: 200,
    mutating: true,
    build: async (f) => {
      await underReview(f, { draft: false });
      return { body: { brand_review: 'off' } };
    },
  },
  ...withHead({ method: 'GET', path: '/api/v1/workspaces/{id}/brand', access: 'brand.read', ok: 200 }),
  {
    method: 'PUT',
    path: '/api/v1/workspaces/{id}/brand',
    access: 'brand.write',
    ok: 200,
    mutating: true,
    // Saved directly only while review is off (the draft rows turn it on).
    build: async (f) => {
      await reviewOff(f);
      return { body: { ...DEMO_BRAND, description: `Edited ${next()}` } };
    },
  },
  // The brand draft (docs/brand-versions.md "Review"): review on, and a fresh draft per call.
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/brand/draft',
    access: 'brand.read',
    ok: 200,
    build: async (f) => {
      await underReview(f, { draft: true });
      return {};
    },
  }),
  {
    method: 'PUT',
    path: '/api/v1/workspaces/{id}/brand/draft',
    access: 'brand.draft.write',
    ok: 200,
    mutating: true,
    build: async (f) => {
      await underReview(f, { draft: false });
      return { body: { ...DEMO_BRAND, description: `Drafted ${next()}` } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/{id}/brand/draft',
    access: 'brand.publish',
    ok: 204,
    mutating: true,
    build: async (f) => {
      await underReview(f, { draft: true });
      return {};
    },
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/brand/draft/publish',
    access: 'brand.publish',
    ok: 201,
    mutating: true,
    build: async (f) => {
      await underReview(f, { draft: true });
      return { body: { note: `Matrix publish ${next()}` } };
    },
  },
  // The brand's history (docs/brand-versions.md): read by every member; a restore publishes (owners and admins).
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/brand/versions',
    access: 'brand.read',
    ok: 200,
  }),
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/brand/versions/{version}',
    access: 'brand.read',
    ok: 200,
    build: () => ({ params: { version: '1' } }),
  }),
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/brand/versions/{version}/diff',
    access: 'brand.read',
    ok: 200,
    build: () => ({ params: { version: '2' }, query: '?from=1' }),
  }),
  // Version 1 (the empty brand the workspace started with), restored over a fresh change: a new version every time.
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/brand/versions/{version}/restore',
    access: 'brand.write',
    ok: 201,
    mutating: true,
    build: async (f) => {
      await reviewOff(f);
      await replaceBrand(
        f.deps,
        OPERATOR,
        f.workspaceId,
        parseBrandDocument({ ...DEMO_BRAND, description: `Before a restore ${next()}` }),
      );
      return { params: { version: '1' }, body: { note: `Matrix restore ${next()}` } };
    },
  },
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/brand-keys',
    access: 'keys.read',
    ok: 200,
  }),
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/brand-keys',
    access: 'keys.write',
    ok: 201,
    mutating: true,
    build: () => ({ body: { name: `matrix key ${next()}` } }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/{id}/brand-keys/{key_id}',
    access: 'keys.write',
    ok: 200,
    mutating: true,
    build: async (f) => {
      const key = await createBrandKey(f.deps, OPERATOR, {
        workspaceId: f.workspaceId,
        name: `to revoke ${next()}`,
      });
      return { params: { key_id: key.id } };
    },
  },
  ...withHead({ method: 'GET', path: '/api/v1/workspaces/{id}/members', access: 'members.read', ok: 200 }),
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/members',
    access: 'members.write',
    ok: 201,
    mutating: true,
    // With a temporary password: a refused caller must not get to set one (or create the account).
    build: () => ({
      body: { email: `invitee${next()}@example.com`, role: 'member', password: 'temporary password 1' },
    }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/{id}/members/{user_id}',
    access: 'members.write',
    ok: 204,
    mutating: true,
    build: async (f) => {
      const { user } = await addUser(f, { workspaceId: f.workspaceId, role: 'member' });
      return { params: { user_id: user.id } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/members/{user_id}/invite',
    access: 'members.write',
    ok: 202,
    mutating: true,
    // A member who has not chosen a password yet.
    build: async (f) => {
      const { user } = await addUser(f, { workspaceId: f.workspaceId, role: 'member' });
      return { params: { user_id: user.id } };
    },
  },
  // What removing a member with revoke_credentials would end (docs/management-api.md "Management API", removing a member).
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/members/{user_id}/credentials',
    access: 'members.write',
    ok: 200,
    build: async (f) => {
      const { user } = await addUser(f, { workspaceId: f.workspaceId, role: 'member' });
      return { params: { user_id: user.id } };
    },
  }),
  ...withHead({ method: 'GET', path: '/api/v1/workspaces/{id}/audit-log', access: 'audit.read', ok: 200 }),
  ...withHead({ method: 'GET', path: '/api/v1/workspaces/{id}/api-keys', access: 'keys.read', ok: 200 }),
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/api-keys',
    access: 'keys.write',
    ok: 201,
    mutating: true,
    build: () => ({ body: { name: `matrix API key ${next()}` } }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/{id}/api-keys/{key_id}',
    access: 'keys.write',
    ok: 200,
    mutating: true,
    build: async (f) => {
      const key = await createApiKey(f.deps, OPERATOR, {
        workspaceId: f.workspaceId,
        name: `to revoke ${next()}`,
      });
      return { params: { key_id: key.id } };
    },
  },
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/campaigns',
    access: 'campaigns.read',
    ok: 200,
  }),
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/campaigns/{campaign_id}',
    access: 'campaigns.read',
    ok: 200,
    build: (f) => ({ params: { campaign_id: f.campaignId } }),
  }),
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/campaigns/{campaign_id}/check',
    access: 'campaigns.read',
    ok: 200,
    build: (f) => ({ params: { campaign_id: f.campaignId } }),
  }),
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/campaigns',
    access: 'campaigns.write',
    ok: 201,
    mutating: true,
    build: () => ({ body: { name: `Matrix campaign ${next()}` } }),
  },
  // A fresh draft per call: a cell that edits or schedules it leaves the next cell a draft of its own.
  {
    method: 'PATCH',
    path: '/api/v1/workspaces/{id}/campaigns/{campaign_id}',
    access: 'campaigns.write',
    ok: 200,
    mutating: true,
    build: async (f) => ({
      params: { campaign_id: await newDraft(f) },
      body: { subject: `Edited ${next()}` },
    }),
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/campaigns/{campaign_id}/schedule',
    access: 'campaigns.schedule',
    ok: 200,
    mutating: true,
    build: async (f) => ({ params: { campaign_id: await newDraft(f) } }),
  },
  ...withHead({ method: 'GET', path: '/api/v1/workspaces/{id}/webhooks', access: 'webhooks.read', ok: 200 }),
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/webhooks',
    access: 'webhooks.write',
    ok: 201,
    mutating: true,
    build: () => ({ body: { url: `https://hooks.example.com/matrix/${next()}`, events: ['*'] } }),
  },
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/webhooks/{webhook_id}',
    access: 'webhooks.read',
    ok: 200,
    build: (f) => ({ params: { webhook_id: f.webhookId } }),
  }),
  {
    method: 'PATCH',
    path: '/api/v1/workspaces/{id}/webhooks/{webhook_id}',
    access: 'webhooks.write',
    ok: 200,
    mutating: true,
    build: async (f) => ({
      params: { webhook_id: await newWebhook(f) },
      body: { description: `Edited ${next()}` },
    }),
  },
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/{id}/webhooks/{webhook_id}',
    access: 'webhooks.write',
    ok: 204,
    mutating: true,
    build: async (f) => ({ params: { webhook_id: await newWebhook(f) } }),
  },
  // Revealing the secret is audited, so a refused caller must leave the audit log as it was too. It has no
  // HEAD: a HEAD would be audited as a reveal while revealing nothing.
  {
    method: 'GET',
    path: '/api/v1/workspaces/{id}/webhooks/{webhook_id}/secret',
    access: 'webhooks.write',
    ok: 200,
    mutating: true,
    build: (f) => ({ params: { webhook_id: f.webhookId } }),
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/webhooks/{webhook_id}/rotate-secret',
    access: 'webhooks.write',
    ok: 200,
    mutating: true,
    build: async (f) => ({ params: { webhook_id: await newWebhook(f) } }),
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/webhooks/{webhook_id}/test',
    access: 'webhooks.write',
    ok: 202,
    mutating: true,
    build: (f) => ({ params: { webhook_id: f.webhookId } }),
  },
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries',
    access: 'webhooks.read',
    ok: 200,
    build: (f) => ({ params: { webhook_id: f.webhookId } }),
  }),
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}',
    access: 'webhooks.read',
    ok: 200,
    build: (f) => ({ params: { webhook_id: f.webhookId, delivery_id: f.deliveryId } }),
  }),
  {
    method: 'POST',
    path: '/api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry',
    access: 'webhooks.write',
    ok: 202,
    mutating: true,
    build: (f) => ({ params: { webhook_id: f.webhookId, delivery_id: f.deliveryId } }),
  },
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/oauth-grants',
    access: 'oauth_grants.read',
    ok: 200,
  }),
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/{id}/oauth-grants/{grant_id}',
    access: 'oauth_grants.revoke',
    ok: 204,
    mutating: true,
    build: async (f, actor) => ({ params: { grant_id: await oauthGrantOf(f, actor) } }),
  },
  ...withHead({ method: 'GET', path: '/api/v1/workspaces/{id}/email-keys', access: 'email.read', ok: 200 }),
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/email-senders',
    access: 'email.read',
    ok: 200,
  }),
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/email-suppressions',
    access: 'email.read',
    ok: 200,
  }),
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/{id}/email-suppressions/{email}',
    access: 'email.write',
    ok: 204,
    mutating: true,
    build: async (f) => {
      const email = `bounced${next()}@example.com`;
      await suppress(f, f.workspaceId, email);
      return { params: { email } };
    },
  },
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/email-messages',
    access: 'email.read',
    ok: 200,
  }),
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/email-messages/{message_id}',
    access: 'email.read',
    ok: 200,
    build: (f) => ({ params: { message_id: f.messageId } }),
  }),
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/email-messages/{message_id}/content',
    access: 'email.read',
    ok: 200,
    build: (f) => ({ params: { message_id: f.capturedId } }),
  }),
  ...withHead({
    method: 'GET',
    path: '/api/v1/workspaces/{id}/email-messages/{message_id}/content.html',
    access: 'email.read',
    ok: 200,
    build: (f) => ({ params: { message_id: f.capturedId } }),
  }),
  {
    method: 'POST',
    path: '/email/v1/messages',
    access: 'email.send',
    ok: 202,
    mutating: true,
    build: () => ({ body: message({ subject: `Matrix ${next()}` }) }),
    overrides: { otherEmailKey: 'sender_not_allowed' },
  },
  ...withHead({ method: 'GET', path: '/email/v1/messages', access: 'email.send', ok: 200 }),
  ...withHead({
    method: 'GET',
    path: '/email/v1/messages/{message_id}',
    access: 'email.send',
    ok: 200,
    build: (f) => ({ params: { message_id: f.messageId } }),
    overrides: { otherEmailKey: 'email_message_not_found' },
  }),
];

/**
 * Brand review on in the target workspace, with a fresh draft that differs from the published brand (`draft`)
 * or none: what the draft routes need, whatever the row before left.
 */
async function underReview(f: SharedFixture, { draft }: { draft: boolean }): Promise<void> {
  await f.deps.store.workspaces.setBrandReview(f.workspaceId, 'required');
  await f.deps.store.brand.takeDraft(f.workspaceId);
  if (draft)
    await saveBrandDraft(
      f.deps,
      OPERATOR,
      f.workspaceId,
      parseBrandDocument({ ...DEMO_BRAND, description: `Drafted ${next()}` }),
    );
}

/** Brand review off in the target workspace, its draft (if any) gone: the brand is saved directly again. */
async function reviewOff(f: SharedFixture): Promise<void> {
  await f.deps.store.brand.takeDraft(f.workspaceId);
  await f.deps.store.workspaces.setBrandReview(f.workspaceId, 'off');
}

async function newDraft(f: Fixture): Promise<string> {
  const draft = await createCampaign(f.deps, OPERATOR, f.workspaceId, {
    name: `Matrix draft ${next()}`,
    subject: '',
    preheader: '',
    body_html: '',
    body_text: '',
  });
  return draft.id;
}

const OAUTH_REDIRECT = 'http://127.0.0.1:33418/callback';

/** A valid authorization request of a newly registered client (docs/oauth.md "Authorization"). */
async function oauthRequest(f: SharedFixture): Promise<Record<string, string>> {
  const client = await registerOAuthClient(f.deps, { redirect_uris: [OAUTH_REDIRECT] });
  return {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: OAUTH_REDIRECT,
    code_challenge: createHash('sha256').update(OAUTH_VERIFIER).digest('base64url'),
    code_challenge_method: 'S256',
  };
}
const OAUTH_VERIFIER = 'matrix-verifier-'.padEnd(43, 'v');

/** A token request for a fresh code the target workspace's owner allowed. */
async function oauthCodeExchange(f: SharedFixture): Promise<Record<string, string>> {
  const request = await oauthRequest(f);
  const owner = { kind: 'user' as const, userId: f.owner.user.id, email: f.owner.user.email };
  const decision = { workspaceId: f.workspaceId, scopes: ['brand:read'], decision: 'allow' as const };
  const redirect = await decideAuthorization(f.deps, owner, request, 'http://localhost', decision);
  return {
    grant_type: 'authorization_code',
    code: new URL(redirect).searchParams.get('code') ?? '',
    redirect_uri: OAUTH_REDIRECT,
    client_id: request.client_id ?? '',
    code_verifier: OAUTH_VERIFIER,
  };
}

/** A grant of `user`'s in the target workspace, stored as consent stores one, for the rows that revoke one. */
async function oauthGrantOf(f: SharedFixture, user: UserRecord): Promise<string> {
  const client = await registerOAuthClient(f.deps, { redirect_uris: [OAUTH_REDIRECT] });
  const id = newId('og');
  await f.store.oauth.createGrant({
    id,
    clientId: client.client_id,
    userId: user.id,
    workspaceId: f.workspaceId,
    scopes: ['brand:read'],
    createdAt: isoNow(f),
    lastUsedAt: null,
    revokedAt: null,
  });
  return id;
}

/** A fresh endpoint of the target workspace, for the rows that change or delete one. */
async function newWebhook(f: SharedFixture): Promise<string> {
  const webhook = await createWebhook(f.deps, OPERATOR, f.workspaceId, {
    url: `https://hooks.example.com/matrix/${next()}`,
    events: ['campaign.created'],
  });
  return webhook.id;
}

/**
 * The token of a working one-time link of account email for a new account, stored as the service stores
 * one: the matrix checks who may follow a link, the account email suites how it is mailed.
 */
async function linkToken(f: Fixture, purpose: keyof typeof ACCOUNT_LINK_PREFIXES): Promise<string> {
  const { user } = await addUser(f, { workspaceId: f.workspaceId, role: 'member' });
  const token = ACCOUNT_LINK_PREFIXES[purpose] + randomBytes(32).toString('base64url');
  await f.store.accountTokens.create({
    id: newId('lnk'),
    tokenHash: hashKey(token),
    purpose,
    userId: user.id,
    workspaceId: purpose === 'invite' ? f.workspaceId : null,
    createdAt: isoNow(f),
    expiresAt: new Date(f.clock.now() + HOUR_S * 1000).toISOString(),
    usedAt: null,
    replacedAt: null,
    messageId: null,
  });
  return token;
}

const routeName = (row: { method: string; path: string }) => `${row.method} ${row.path}`;

/** `{name}` placeholders, and a trailing `*` (a wildcard route) from `params['*']`. */
function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}|\*$/g, (match, name: string | undefined) => {
    const value = params[name ?? match];
    if (value === undefined) throw new Error(`no value for ${match} in ${template}`);
    return encodeURIComponent(value);
  });
}

/** What `caller` gets on `row`: its access's cell, unless the row says otherwise. */
function outcomeOf(row: RouteRow, caller: CallerKind): Outcome {
  return row.overrides?.[caller] ?? EXPECTED[row.access][caller];
}

function expectedCell(row: RouteRow, caller: CallerKind): string {
  const outcome = outcomeOf(row, caller);
  if (outcome === 'ok') return String(row.ok);
  // HEAD answers carry no body, so only the status can be compared.
  return row.method === 'HEAD' ? String(PROBLEMS[outcome].status) : `${PROBLEMS[outcome].status} ${outcome}`;
}

const HOUR_S = 3600;

/**
 * A password hash in the service's format (`scrypt$N$r$p$salt$hash`: the parameters travel with the hash)
 * with cheap parameters, so that the sign-in row's eleven sign-ins take milliseconds, not seconds.
 */
function cheapPasswordHash(password: string): string {
  const N = 1024;
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N, r: 8, p: 1 });
  return ['scrypt', N, 8, 1, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

async function matrixExtra(f: SharedFixture): Promise<MatrixExtra> {
  const campaign = await createCampaign(f.deps, OPERATOR, f.workspaceId, {
    name: 'Matrix campaign',
    subject: '',
    preheader: '',
    body_html: '',
    body_text: '',
  });
  const signIn = { email: `signer${next()}@example.com`, password: 'correct horse battery' };
  const signer = await findOrCreateUser(f.deps, signIn.email);
  await f.store.users.setPasswordHash(signer.id, cheapPasswordHash(signIn.password));
  const webhookId = await newWebhook(f);
  const test = await sendWebhookTest(f.deps, OPERATOR, f.workspaceId, webhookId);
  const keys = await emailKeys(f);
  return {
    campaignId: campaign.id,
    webhookId,
    deliveryId: test.delivery_id,
    signIn,
    ...keys,
    messageId: (await sendEmail(f, keys.emailKey)).id,
    capturedId: await capturedEmail(f, f.workspaceId),
  };
}

/** The user a caller acts as (whose token a DELETE /api/v1/tokens/{token_id} row revokes). */
function actorOf(f: Fixture, caller: CallerKind): UserRecord {
  switch (caller) {
    case 'admin':
      return f.admin.user;
    case 'member':
      return f.member.user;
    case 'outsider':
      return f.otherOwner.user;
    default:
      return f.owner.user;
  }
}

/** The caller's Authorization header, made just before its request (sessions live an hour of the clock). */
async function credentialOf(f: Fixture, caller: CallerKind): Promise<string | undefined> {
  const session = async (user: UserRecord) => `Bearer ${(await issueSession(f.deps, user)).access_token}`;
  switch (caller) {
    case 'anonymous':
      return undefined;
    case 'expiredSession': {
      const header = await session(f.owner.user);
      f.clock.advance((HOUR_S + 1) * 1000);
      return header;
    }
    case 'revokedToken': {
      const created = await createPersonalToken(f.deps, f.owner.user, {
        name: `revoked ${next()}`,
        expiresInDays: 30,
      });
      await revokePersonalToken(f.deps, f.owner.user, created.id);
      return `Bearer ${created.token}`;
    }
    case 'garbageToken':
      return 'Bearer not-a-token';
    case 'forgedToken': {
      const now = Math.floor(f.clock.now() / 1000);
      const forged = await new SignJWT({ email: f.owner.user.email })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer('brand-context')
        .setAudience('brand-context')
        .setSubject(f.owner.user.id)
        .setIssuedAt(now)
        .setExpirationTime(now + HOUR_S)
        .sign(new TextEncoder().encode('an attacker-chosen secret of 32+ characters'));
      return `Bearer ${forged}`;
    }
    case 'brandKey':
      return `Bearer ${f.brandKey}`;
    case 'otherBrandKey':
      return `Bearer ${f.otherBrandKey}`;
    case 'apiKey':
      return `Bearer ${f.apiKey}`;
    case 'otherApiKey':
      return `Bearer ${f.otherApiKey}`;
    case 'emailKey':
      return `Bearer ${f.emailKey}`;
    case 'otherEmailKey':
      return `Bearer ${f.otherEmailKey}`;
    case 'owner':
    case 'admin':
    case 'member':
    case 'outsider':
      return session(actorOf(f, caller));
  }
}

async function call(
  f: Fixture,
  row: Pick<RouteRow, 'method' | 'path'>,
  authorization: string | undefined,
  built: Built,
  workspaceId = f.workspaceId,
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...built.headers };
  if (authorization !== undefined) headers.authorization = authorization;
  if (built.body !== undefined) headers['content-type'] = 'application/json';
  return f.app.inject({
    method: row.method,
    url: fillPath(row.path, { id: workspaceId, ...built.params }) + (built.query ?? ''),
    headers,
    ...(built.body === undefined ? {} : { payload: JSON.stringify(built.body) }),
  });
}

describeEachBackend('Authorization matrix: every route × every kind of caller', (backend) => {
  // Every caller follows each account link, and the invalid-body test once more: past the per-client throttles.
  const unthrottled = { attempts: 1000, windowSeconds: 60 };
  const fixture = useFixture(backend, {
    extend: matrixExtra,
    app: {
      accountLinkLimits: { resetPerIp: unthrottled, resetPerEmail: unthrottled, linkPerIp: unthrottled },
      // Each webhook route's row makes endpoints in the one workspace: past the default endpoint limit.
      webhooks: { endpointLimit: 10_000 },
    },
  });

  it('keeps the role and key columns in step with the PERMISSIONS table and the key kinds', () => {
    for (const permission of Object.keys(PERMISSIONS) as Permission[]) {
      const cells = EXPECTED[permission];
      // /email/v1 takes transactional email keys alone: no user or other key gets as far as a role check.
      if (EMAIL_KEY_PERMISSIONS.includes(permission)) {
        expect(cells.emailKey, `emailKey on ${permission}`).toBe('ok');
        for (const role of ROLES) expect(cells[role], `${role} on ${permission}`).toBe('email_key_invalid');
        continue;
      }
      for (const role of ROLES) {
        expect(cells[role], `${role} on ${permission}`).toBe(
          can(role, permission) ? 'ok' : 'insufficient_role',
        );
      }
      const keyMay = API_KEY_PERMISSIONS.includes(permission);
      expect(cells.apiKey, `apiKey on ${permission}`).toBe(keyMay ? 'ok' : 'api_key_not_allowed');
      expect(cells.otherApiKey, `otherApiKey on ${permission}`).toBe(
        keyMay ? 'workspace_forbidden' : 'api_key_not_allowed',
      );
      expect(cells.emailKey, `emailKey on ${permission}`).toBe('email_key_not_allowed');
    }
  });

  for (const row of ROUTES) {
    it(`answers ${routeName(row)} (${row.access}) for each caller as the matrix says`, async () => {
      const f = fixture();
      const expected: Record<string, string> = {};
      const actual: Record<string, string> = {};
      const tablesChanged: string[] = [];
      for (const caller of CALLERS) {
        const label = `${caller}: ${CALLER_NAMES[caller]}`;
        const authorization = await credentialOf(f, caller);
        const built = (await row.build?.(f, actorOf(f, caller))) ?? {};
        expected[label] = expectedCell(row, caller);
        const refused = outcomeOf(row, caller) !== 'ok';
        const before = row.mutating === true && refused ? await snapshotTables(f.database.config) : undefined;
        const response = await call(f, row, authorization, built);
        actual[label] = outcome(response);
        if (
          before !== undefined &&
          JSON.stringify(await snapshotTables(f.database.config)) !== JSON.stringify(before)
        )
          tablesChanged.push(label);
        // /mcp's points MCP clients at its protected-resource metadata, where OAuth starts (RFC 9728).
        if (response.statusCode === 401)
          expect
            .soft(response.headers['www-authenticate'], label)
            .toMatch(row.access === 'mcp' ? /^Bearer resource_metadata="/ : /^Bearer realm="brand-context"/);
        if (response.statusCode === 405) expect.soft(response.headers.allow, label).toBe('POST');
        if (response.statusCode >= 400 && authorization !== undefined) {
          const secret = authorization.slice('Bearer '.length);
          expect.soft(response.body, label).not.toContain(secret);
        }
      }
      expect(actual).toEqual(expected);
      expect(tablesChanged, 'refused requests that changed a table').toEqual([]);
    });
  }

  it('refuses a caller before reading the body: an invalid body is a 400 only for callers who may call the route', async () => {
    const f = fixture();
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    for (const row of ROUTES) {
      // The read operation names its workspace in the body, so its checks (docs/reading-brand-context.md "Errors") read the body before the 403.
      if (row.access === 'read') continue;
      // /mcp answers a body it cannot read in JSON-RPC, as the protocol has it (a -32700 or -32600 error).
      if (row.access === 'mcp') continue;
      // So does OAuth, in its own JSON errors (RFC 6749 §5.2, RFC 7591 §3.2.2): src/http/routes/oauth's suites.
      if (row.path.startsWith('/oauth/')) continue;
      if (row.build === undefined || (await row.build(f, f.owner.user)).body === undefined) continue;
      for (const caller of CALLERS) {
        const label = `${routeName(row)} as ${caller}`;
        const allowed = EXPECTED[row.access][caller];
        expected[label] = allowed === 'ok' ? '400 invalid_request' : `${PROBLEMS[allowed].status} ${allowed}`;
        const authorization = await credentialOf(f, caller);
        const built = await row.build(f, actorOf(f, caller));
        const response = await call(f, row, authorization, { ...built, body: { unexpected: true } });
        actual[label] = outcome(response);
      }
    }
    expect(Object.keys(expected).length).toBeGreaterThan(CALLERS.length);
    expect(actual).toEqual(expected);
  });

  it('answers 404 workspace_not_found to an owner on every workspace route for a workspace that does not exist', async () => {
    const f = fixture();
    const workspaceRows = ROUTES.filter((row) => row.path.startsWith('/api/v1/workspaces/{id}'));
    expect(workspaceRows.length).toBeGreaterThan(0);
    for (const row of workspaceRows) {
      const built = (await row.build?.(f, f.owner.user)) ?? {};
      const response = await call(
        f,
        row,
        await credentialOf(f, 'owner'),
        built,
        'ws_DoesNotExist0000000000000',
      );
      expect(outcome(response), routeName(row)).toBe(
        row.method === 'HEAD' ? '404' : '404 workspace_not_found',
      );
    }
  });

  it("does not let an owner of another workspace revoke this workspace's key through their own workspace", async () => {
    const f = fixture();
    const key = await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'bola target' });
    const before = await snapshotTables(f.database.config);
    const response = await call(
      f,
      { method: 'DELETE', path: '/api/v1/workspaces/{id}/brand-keys/{key_id}' },
      await credentialOf(f, 'outsider'),
      { params: { key_id: key.id } },
      f.otherWorkspaceId,
    );
    expect(outcome(response)).toBe('404 key_not_found');
    expect(await snapshotTables(f.database.config)).toEqual(before);
    const read = await call(f, { method: 'POST', path: '/functions/v1/brand-agent' }, `Bearer ${key.key}`, {
      body: { action: 'context', workspace_id: f.workspaceId },
    });
    expect(read.statusCode).toBe(200);
  });

  it("does not let an owner of another workspace remove this workspace's member through their own workspace", async () => {
    const f = fixture();
    const before = await snapshotTables(f.database.config);
    const response = await call(
      f,
      { method: 'DELETE', path: '/api/v1/workspaces/{id}/members/{user_id}' },
      await credentialOf(f, 'outsider'),
      { params: { user_id: f.member.user.id } },
      f.otherWorkspaceId,
    );
    expect(outcome(response)).toBe('404 member_not_found');
    expect(await snapshotTables(f.database.config)).toEqual(before);
  });

  it("does not let an owner of another workspace revoke this workspace's API key through their own workspace", async () => {
    const f = fixture();
    const key = await createApiKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'bola target' });
    const before = await snapshotTables(f.database.config);
    const response = await call(
      f,
      { method: 'DELETE', path: '/api/v1/workspaces/{id}/api-keys/{key_id}' },
      await credentialOf(f, 'outsider'),
      { params: { key_id: key.id } },
      f.otherWorkspaceId,
    );
    expect(outcome(response)).toBe('404 api_key_not_found');
    expect(await snapshotTables(f.database.config)).toEqual(before);
    const list = await call(
      f,
      { method: 'GET', path: '/api/v1/workspaces/{id}/campaigns' },
      `Bearer ${key.key}`,
      {},
    );
    expect(list.statusCode).toBe(200);
  });

  it("does not let another workspace's owner or API key read, edit or schedule this workspace's campaign through their own workspace", async () => {
    const f = fixture();
    const campaignId = await newDraft(f);
    const routes = [
      { method: 'GET', path: '/api/v1/workspaces/{id}/campaigns/{campaign_id}' },
      {
        method: 'PATCH',
        path: '/api/v1/workspaces/{id}/campaigns/{campaign_id}',
        body: { subject: 'Hijacked' },
      },
      { method: 'POST', path: '/api/v1/workspaces/{id}/campaigns/{campaign_id}/schedule' },
    ] as const;
    const before = await snapshotTables(f.database.config);
    const actual: Record<string, string> = {};
    for (const caller of ['outsider', 'otherApiKey'] as const) {
      for (const route of routes) {
        const body = 'body' in route ? route.body : undefined;
        const response = await call(
          f,
          route,
          await credentialOf(f, caller),
          { params: { campaign_id: campaignId }, body },
          f.otherWorkspaceId,
        );
        actual[`${routeName(route)} as ${caller}`] = outcome(response);
      }
    }
    expect(Object.values(actual)).toEqual(Array(6).fill('404 campaign_not_found'));
    expect(await snapshotTables(f.database.config)).toEqual(before);
  });

  it("does not let another workspace's owner reach this workspace's webhook endpoint or its deliveries through their own workspace", async () => {
    const f = fixture();
    const webhook = '/api/v1/workspaces/{id}/webhooks/{webhook_id}';
    const delivery = `${webhook}/deliveries/{delivery_id}`;
    const routes = [
      { method: 'GET', path: webhook },
      { method: 'PATCH', path: webhook, body: { enabled: false } },
      { method: 'DELETE', path: webhook },
      { method: 'GET', path: `${webhook}/secret` },
      { method: 'POST', path: `${webhook}/rotate-secret` },
      { method: 'POST', path: `${webhook}/test` },
      { method: 'GET', path: `${webhook}/deliveries` },
      { method: 'GET', path: delivery },
      { method: 'POST', path: `${delivery}/retry` },
    ] as const;
    const before = await snapshotTables(f.database.config);
    const actual: Record<string, string> = {};
    for (const route of routes) {
      const response = await call(
        f,
        route,
        await credentialOf(f, 'outsider'),
        {
          params: { webhook_id: f.webhookId, delivery_id: f.deliveryId },
          body: 'body' in route ? route.body : undefined,
        },
        f.otherWorkspaceId,
      );
      actual[routeName(route)] = outcome(response);
      expect(response.body).not.toContain('whsec_');
      expect(response.body).not.toContain('hooks.example.com');
    }
    expect(actual).toEqual(
      Object.fromEntries(routes.map((route) => [routeName(route), '404 webhook_not_found'])),
    );
    expect(await snapshotTables(f.database.config)).toEqual(before);
  });

  it("does not let one user revoke another user's personal access token", async () => {
    const f = fixture();
    const token = await createPersonalToken(f.deps, f.owner.user, { name: 'not yours', expiresInDays: 7 });
    const before = await snapshotTables(f.database.config);
    const response = await call(
      f,
      { method: 'DELETE', path: '/api/v1/tokens/{token_id}' },
      await credentialOf(f, 'outsider'),
      { params: { token_id: token.id } },
    );
    expect(outcome(response)).toBe('404 token_not_found');
    expect(await snapshotTables(f.database.config)).toEqual(before);
    const stillWorks = await call(f, { method: 'GET', path: '/api/v1/tokens' }, `Bearer ${token.token}`, {});
    expect(stillWorks.statusCode).toBe(200);
  });

  it("lists only the caller's own workspaces and personal access tokens", async () => {
    const f = fixture();
    const ownersToken = await createPersonalToken(f.deps, f.owner.user, {
      name: 'owner only',
      expiresInDays: 7,
    });
    const outsider = await credentialOf(f, 'outsider');
    const workspaces = await call(f, { method: 'GET', path: '/api/v1/workspaces' }, outsider, {});
    const ids = workspaces.json<{ workspaces: { id: string }[] }>().workspaces.map((w) => w.id);
    expect(ids).toContain(f.otherWorkspaceId);
    expect(ids).not.toContain(f.workspaceId);
    const tokens = await call(f, { method: 'GET', path: '/api/v1/tokens' }, outsider, {});
    expect(tokens.statusCode).toBe(200);
    expect(tokens.body).not.toContain(ownersToken.id);
  });

  // Last: the table above must cover exactly the routes the app has.
  it('has a matrix row for every route the app registers, and /openapi.json documents exactly the documented rows', async () => {
    const f = fixture();
    const registered: { route: string; permission: Permission | undefined }[] = [];
    const probe = buildApp({
      store: f.store,
      logger: createLogger('silent'),
      secrets: f.app.services.accountMail.secrets,
    });
    probe.addHook('onRoute', (options) => {
      const methods = Array.isArray(options.method) ? options.method : [options.method];
      const path = options.url.replace(/:(\w+)/g, '{$1}');
      for (const method of methods)
        registered.push({ route: `${method} ${path}`, permission: options.config?.permission });
    });
    await probe.ready();
    await probe.close();

    const table = ROUTES.map(routeName).sort();
    expect(new Set(table).size, 'duplicate rows').toBe(table.length);
    expect(registered.map((entry) => entry.route).sort()).toEqual(table);
    // Each row's access is the permission its route declares (or none, for account and public routes).
    const declared = Object.fromEntries(registered.map((entry) => [entry.route, entry.permission]));
    for (const row of ROUTES) {
      const permission = row.access in PERMISSIONS ? row.access : undefined;
      expect(declared[routeName(row)], routeName(row)).toBe(permission);
    }

    const openapi = await f.app.inject({ method: 'GET', url: '/openapi.json' });
    const paths = openapi.json<{ paths: Record<string, Record<string, unknown>> }>().paths;
    const documented = Object.entries(paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(
      ROUTES.filter((row) => row.documented !== false)
        .map(routeName)
        .sort(),
    );
  });
});
