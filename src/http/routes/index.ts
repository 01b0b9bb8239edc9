import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AppError } from '../../core/errors.js';
import { refuseNulCharacters } from '../../core/inputs.js';
import type { Metrics } from '../../services/metrics/metrics.js';
import type { Store } from '../../store/store.js';
import {
  authenticate,
  authorizeWorkspace,
  COOKIE_OPTIONS,
  CSRF_COOKIE,
  requireCsrfForCookieWrites,
} from '../auth.js';
import { consoleRoutes } from '../console.js';
import type { Route, ZodApp } from '../context.js';
import { docsRoutes } from '../openapi.js';
import { auditLogRoute } from './api/audit-log.js';
import { getBrandRoute } from './api/brand/get.js';
import { putBrandRoute } from './api/brand/put.js';
import { deleteBrandDraftRoute } from './api/brand/draft-delete.js';
import { getBrandDraftRoute } from './api/brand/draft-get.js';
import { publishBrandDraftRoute } from './api/brand/draft-publish.js';
import { putBrandDraftRoute } from './api/brand/draft-put.js';
import { diffBrandVersionsRoute } from './api/brand/version-diff.js';
import { getBrandVersionRoute } from './api/brand/version-get.js';
import { restoreBrandVersionRoute } from './api/brand/version-restore.js';
import { listBrandVersionsRoute } from './api/brand/versions-list.js';
import { createCampaignRoute } from './api/campaigns/create.js';
import { checkCampaignRoute } from './api/campaigns/check.js';
import { getCampaignRoute } from './api/campaigns/get.js';
import { listCampaignsRoute } from './api/campaigns/list.js';
import { scheduleCampaignRoute } from './api/campaigns/schedule.js';
import { updateCampaignRoute } from './api/campaigns/update.js';
import { emailMessageContentRoute } from './api/email-messages/content.js';
import { emailMessageHtmlRoute } from './api/email-messages/content-html.js';
import { getEmailMessageRoute } from './api/email-messages/get.js';
import { listEmailMessagesRoute } from './api/email-messages/list.js';
import { listEmailSendersRoute } from './api/email-senders/list.js';
import { listEmailSuppressionsRoute } from './api/email-suppressions/list.js';
import { removeEmailSuppressionRoute } from './api/email-suppressions/remove.js';
import { createKeyRoute } from './api/keys/create.js';
import { KEY_ROUTES } from './api/keys/kinds.js';
import { listKeysRoute } from './api/keys/list.js';
import { revokeKeyRoute } from './api/keys/revoke.js';
import { addMemberRoute } from './api/members/add.js';
import { memberCredentialsRoute } from './api/members/credentials.js';
import { resendInviteRoute } from './api/members/invite.js';
import { listMembersRoute } from './api/members/list.js';
import { removeMemberRoute } from './api/members/remove.js';
import { createTokenRoute } from './api/tokens/create.js';
import { listTokensRoute } from './api/tokens/list.js';
import { revokeTokenRoute } from './api/tokens/revoke.js';
import { createWebhookRoute } from './api/webhooks/create.js';
import { deleteWebhookRoute } from './api/webhooks/delete.js';
import { listDeliveriesRoute } from './api/webhooks/deliveries.js';
import { getDeliveryRoute } from './api/webhooks/delivery.js';
import { getWebhookRoute } from './api/webhooks/get.js';
import { listWebhooksRoute } from './api/webhooks/list.js';
import { retryDeliveryRoute } from './api/webhooks/retry-delivery.js';
import { rotateWebhookSecretRoute } from './api/webhooks/rotate-secret.js';
import { webhookSecretRoute } from './api/webhooks/secret.js';
import { testWebhookRoute } from './api/webhooks/test.js';
import { updateWebhookRoute } from './api/webhooks/update.js';
import { createWorkspaceRoute } from './api/workspaces/create.js';
import { getWorkspaceRoute } from './api/workspaces/get.js';
import { updateWorkspaceRoute } from './api/workspaces/update.js';
import { listWorkspacesRoute } from './api/workspaces/list.js';
import { acceptInviteRoute } from './auth/invite-accept.js';
import { requestPasswordResetRoute } from './auth/password-reset.js';
import { confirmPasswordResetRoute } from './auth/password-reset-confirm.js';
import { sessionRoutes } from './auth/session.js';
import { signInRoute } from './auth/token.js';
import { brandAgentRoutes, type ReadHandler } from './brand-agent.js';
import { brandCheckRoute } from './brand-check.js';
import { authenticateEmailKey } from './email/email-key.js';
import { getEmailRoute } from './email/get.js';
import { listEmailsRoute } from './email/list.js';
import { sendEmailRoute } from './email/send.js';
import { healthRoutes } from './health.js';
import { metricsRoute } from './metrics.js';
import { getAuthorizationRoute } from './api/oauth/authorization-get.js';
import { postAuthorizationRoute } from './api/oauth/authorization-post.js';
import { listOAuthGrantsRoute } from './api/oauth-grants/list.js';
import { revokeOAuthGrantRoute } from './api/oauth-grants/revoke.js';
import { oauthRoutes } from './oauth/group.js';
import { authorizationServerMetadataRoute } from './oauth/metadata.js';
import { mcpRoute, type McpRouteOptions } from './mcp.js';
import { oauthProtectedResourceRoute } from './oauth-protected-resource.js';

export interface RouteTreeOptions {
  /** What the readiness check asks. */
  store: Pick<Store, 'kind' | 'ping'>;
  /** The built console to serve at `/`; no console without it. */
  consoleDir?: string;
  /** Where this installation is, for the console's MCP client configuration. */
  installDir?: string;
  /** What GET /metrics exports; no /metrics without it (METRICS=off). */
  metrics?: Metrics | undefined;
  /** METRICS_TOKEN, which GET /metrics then needs. */
  metricsToken?: string | undefined;
  /** The read operation, which answers below the router (src/http/routes/brand-agent.ts). */
  readBrandContext: ReadHandler;
  /** Remote MCP (src/http/routes/mcp.ts): the origins it admits, and what verifies OAuth access tokens. */
  mcp: McpRouteOptions;
}

/** A group of routes sharing the prefix it is registered with; each route declares its path relative to it. */
function routeGroup(...routes: Route[]) {
  return (group: ZodApp, _options: unknown, done: HookHandlerDoneFunction): void => {
    for (const route of routes) route(group);
    done();
  };
}

/**
 * The resources of a workspace, each under its own path below `/api/v1/workspaces/:id`. The order is the
 * order of the API reference (/openapi.json).
 */
const WORKSPACE_RESOURCES: readonly { prefix: string; routes: Route[] }[] = [
  { prefix: '', routes: [getWorkspaceRoute, updateWorkspaceRoute] },
  { prefix: '/brand', routes: [getBrandRoute, putBrandRoute] },
  {
    prefix: '/brand',
    routes: [listBrandVersionsRoute, getBrandVersionRoute, diffBrandVersionsRoute, restoreBrandVersionRoute],
  },
  {
    prefix: '/brand',
    routes: [getBrandDraftRoute, putBrandDraftRoute, deleteBrandDraftRoute, publishBrandDraftRoute],
  },
  ...KEY_ROUTES.map((keys) => ({
    prefix: `/${keys.kind.collection}`,
    // The operator's keys are created and revoked with the CLI only: the workspace sees them listed.
    routes:
      keys.kind.managedBy === 'workspace'
        ? [createKeyRoute(keys), listKeysRoute(keys), revokeKeyRoute(keys)]
        : [listKeysRoute(keys)],
  })),
  {
    prefix: '/members',
    routes: [listMembersRoute, addMemberRoute, removeMemberRoute, resendInviteRoute, memberCredentialsRoute],
  },
  { prefix: '/audit-log', routes: [auditLogRoute] },
  {
    prefix: '/campaigns',
    routes: [
      listCampaignsRoute,
      getCampaignRoute,
      checkCampaignRoute,
      createCampaignRoute,
      updateCampaignRoute,
      scheduleCampaignRoute,
    ],
  },
  {
    prefix: '/webhooks',
    routes: [
      listWebhooksRoute,
      createWebhookRoute,
      getWebhookRoute,
      updateWebhookRoute,
      deleteWebhookRoute,
      webhookSecretRoute,
      rotateWebhookSecretRoute,
      testWebhookRoute,
      listDeliveriesRoute,
      getDeliveryRoute,
      retryDeliveryRoute,
    ],
  },
  { prefix: '/email-senders', routes: [listEmailSendersRoute] },
  {
    prefix: '/email-suppressions',
    routes: [listEmailSuppressionsRoute, removeEmailSuppressionRoute],
  },
  {
    prefix: '/email-messages',
    routes: [listEmailMessagesRoute, getEmailMessageRoute, emailMessageContentRoute, emailMessageHtmlRoute],
  },
  { prefix: '/oauth-grants', routes: [listOAuthGrantsRoute, revokeOAuthGrantRoute] },
];

/**
 * The path and query name what authorization looks up, so a NUL there (which PostgreSQL text cannot hold) is
 * refused before it; bodies are checked after authorization, when they are validated (src/http/request-input.ts).
 */
function refuseNulInPathAndQuery(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  try {
    for (const input of [request.params, request.query]) refuseNulCharacters(input, '', 'Invalid request');
    done();
  } catch (error) {
    done(error as AppError);
  }
}

/**
 * What every route a console session can call shares: cookies and CSRF, and a path and query checked before
 * anything looks them up. Only these scopes parse cookies: the read operation never does, and has no path
 * parameters or query to check.
 */
async function sessionScope(scope: ZodApp): Promise<void> {
  await scope.register(fastifyCookie);
  await scope.register(fastifyCsrf, {
    cookieKey: CSRF_COOKIE,
    cookieOpts: COOKIE_OPTIONS,
    getToken: (request) => {
      const token = request.headers['x-csrf-token'];
      return typeof token === 'string' ? token : undefined;
    },
  });
  scope.addHook('preValidation', refuseNulInPathAndQuery);
}

/**
 * `/auth/v1`: sign-in for a user token, the links of account email (docs/account-email.md "Account email"), and the
 * console's session.
 */
async function authRoutes(auth: ZodApp, options: Pick<RouteTreeOptions, 'installDir'>): Promise<void> {
  signInRoute(auth);
  acceptInviteRoute(auth);
  requestPasswordResetRoute(auth);
  confirmPasswordResetRoute(auth);
  await auth.register(async (session: ZodApp) => {
    await sessionScope(session);
    sessionRoutes(session, options.installDir);
  });
}

/** `/api/v1/workspaces/:id`: every route's `config.permission` is checked in that workspace. */
async function workspaceRoutes(workspace: ZodApp): Promise<void> {
  // Before validation: a caller with no access learns nothing, not even what a valid body looks like.
  workspace.addHook('preValidation', authorizeWorkspace(workspace.services.credentials));
  for (const { prefix, routes } of WORKSPACE_RESOURCES)
    await workspace.register(routeGroup(...routes), { prefix });
}

/** `/api/v1`, the management API: every caller is authenticated, and cookie writes carry the CSRF token. */
async function managementRoutes(api: ZodApp): Promise<void> {
  await sessionScope(api);
  api.addHook('onRequest', authenticate(api.services.credentials));
  api.addHook('onRequest', requireCsrfForCookieWrites(api));
  await api.register(routeGroup(listWorkspacesRoute, createWorkspaceRoute), { prefix: '/workspaces' });
  await api.register(routeGroup(createTokenRoute, listTokensRoute, revokeTokenRoute), { prefix: '/tokens' });
  await api.register(routeGroup(getAuthorizationRoute, postAuthorizationRoute), {
    prefix: '/oauth/authorization',
  });
  await api.register(workspaceRoutes, { prefix: '/workspaces/:id' });
}

/**
 * `/email/v1`, the transactional email API: a transactional email key alone, acting in its own workspace,
 * checked before the body is read (no cookie is parsed here).
 */
async function emailRoutes(email: ZodApp): Promise<void> {
  email.addHook('onRequest', authenticateEmailKey(email.services.credentials));
  email.addHook('preValidation', refuseNulInPathAndQuery);
  await email.register(routeGroup(sendEmailRoute, listEmailsRoute, getEmailRoute), { prefix: '/messages' });
}

/**
 * Every route of the service, each group registered with the prefix its routes share. Registered after
 * @fastify/swagger, which lists the routes in this order in /openapi.json.
 */
export async function routeTree(app: ZodApp, options: RouteTreeOptions): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  await app.register(docsRoutes);
  healthRoutes(app, options.store);
  if (options.metrics) metricsRoute(app, options.metrics, options.metricsToken);
  // The read operation: described here, answered below the router on the benchmarked hot path.
  brandAgentRoutes(app, options.readBrandContext);
  // In a session scope: the console sends the check with its cookie and CSRF token (docs/brand-check.md).
  await app.register(async (check: ZodApp) => {
    await sessionScope(check);
    brandCheckRoute(check);
  });
  mcpRoute(app, options.mcp);
  oauthProtectedResourceRoute(app);
  await app.register(authRoutes, { prefix: '/auth/v1', installDir: options.installDir });
  await app.register(managementRoutes, { prefix: '/api/v1' });
  authorizationServerMetadataRoute(app);
  await app.register(oauthRoutes, { prefix: '/oauth' });
  await app.register(emailRoutes, { prefix: '/email/v1' });
  const { consoleDir } = options;
  if (consoleDir !== undefined) await app.register((site: ZodApp) => consoleRoutes(site, consoleDir));
}
