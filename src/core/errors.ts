/**
 * Every error a client can see: its HTTP status, title, detail and the advice it carries. Throw sites pass
 * values (`new AppError('workspace_not_found', { workspaceId })`); the prose is all here. The 401/403/404
 * resolutions are the wording docs/reading-brand-context.md "Errors" promises; the rest follow its tone.
 *
 * Browser-safe (no Node imports): the console and the MCP server import the codes too.
 */
const SPEC_401 = 'Revoke the key and create a replacement in Settings → Agent Access.';
/** For a key sent in the wrong form: the key itself may be fine, so revoking it is only for one that is lost. */
const LOST_KEY = 'If the key is lost, revoke it and create a replacement in Settings → Agent Access.';
const API_KEY_REPLACE =
  'Create a workspace API key in Settings → Agent Access (POST /api/v1/workspaces/{id}/api-keys), then revoke this one.';

const EMAIL_KEY_ASK =
  'Transactional email keys are issued by the operator of this service: ask them for one (brand-context email-keys create).';

/** What each limit of sign-in, account links and reads counts, as rate_limited's detail names it. */
const RATE_LIMITED_ATTEMPTS = {
  ip: 'sign-in attempts from your address',
  account_and_ip: 'failed sign-ins to this account from your address',
  account: 'failed sign-ins to this account',
  reset_ip: 'password reset requests from your address',
  reset_email: 'password reset requests for this email address',
  link_ip: 'uses of invite and password reset links from your address',
  reads: 'reads with this credential',
} as const;

/** A detail as clients read it: fixed text, or a function of the values it names. */
type Phrasing = string | ((values: never) => string);

interface ProblemDefinition {
  status: number;
  title: string;
  resolution: string;
  detail: Phrasing;
}

/** The values a phrasing needs: any for fixed text. */
type PhrasingValues<P extends Phrasing> = P extends (values: infer V) => string ? V : unknown;

type ReasonValues<M extends Record<string, Phrasing>> = {
  [R in keyof M & string]: { reason: R } & PhrasingValues<M[R]>;
}[keyof M & string];

function render(phrasing: Phrasing, values: unknown): string {
  // The constructor's types give each phrasing the values it names.
  return typeof phrasing === 'string' ? phrasing : phrasing(values as never);
}

/** A code with several details: the values name which one (`reason`) and carry what that one needs. */
function byReason<const M extends Record<string, Phrasing>>(
  phrasings: M,
): (values: ReasonValues<M>) => string {
  return (values) => render(phrasings[values.reason] as Phrasing, values);
}

export const PROBLEMS = {
  missing_key: {
    status: 401,
    title: 'Missing brand read key',
    resolution: `Send the key as "Authorization: Bearer brk_…" (the word Bearer, one space, then the whole brand read key). ${LOST_KEY}`,
    detail: 'The Authorization header is missing.',
  },
  malformed_key: {
    status: 401,
    title: 'Malformed brand read key',
    resolution: `Send the whole key as "Authorization: Bearer brk_…": the word Bearer, one space, then brk_ and 36 letters and digits, copied whole. ${LOST_KEY}`,
    detail: byReason({
      scheme: 'The Authorization header must be "Bearer <key>".',
      format: 'The bearer token is not a well-formed brand read key.',
      wrong_kind: (v: { label: string; prefix: string }) =>
        `This is a ${v.label} (${v.prefix}…), which the read operation does not take; it takes a brand read key (brk_…).`,
    }),
  },
  invalid_key: {
    status: 401,
    title: 'Invalid brand read key',
    resolution: SPEC_401,
    detail: 'The brand read key is not known to this service.',
  },
  key_expired: {
    status: 401,
    title: 'Brand read key expired',
    resolution: SPEC_401,
    detail: (v: { expiresAt: string }) => `The brand read key expired at ${v.expiresAt}.`,
  },
  key_revoked: {
    status: 401,
    title: 'Brand read key revoked',
    resolution: SPEC_401,
    detail: 'The brand read key has been revoked.',
  },
  missing_token: {
    status: 401,
    title: 'Missing access token',
    resolution:
      'Sign in with POST /auth/v1/token (or create a personal access token) and send it as "Authorization: Bearer <token>".',
    detail: byReason({
      header: 'The Authorization header is missing.',
      cookie: 'Not signed in: there is no session cookie.',
    }),
  },
  invalid_token: {
    status: 401,
    title: 'Invalid access token',
    resolution: 'Sign in again with POST /auth/v1/token, or create a new personal access token.',
    detail: byReason({
      scheme: 'The Authorization header must be "Bearer <token>".',
      format: 'The bearer token is not a valid access token.',
      invalid: 'The access token is not valid.',
      lifetime: (v: { lifetime: number; maxLifetime: number }) =>
        `The access token's lifetime (exp − iat, ${v.lifetime} s) is longer than this service issues (${v.maxLifetime} s).`,
      too_old: (v: { maxAge: number | string }) =>
        `The access token was issued ("iat") more than ${v.maxAge} s ago, longer than this service accepts.`,
      missing_claim: (v: { claim: string }) => `The access token has no "${v.claim}" claim.`,
      claim_not_string: (v: { claim: string }) => `The access token's "${v.claim}" claim is not a string.`,
      claim_refused: (v: { claim: string; why: string }) =>
        `The access token's "${v.claim}" claim was refused: ${v.why}.`,
      foreign_issuer: 'The access token was not issued by this service.',
      no_account: 'The access token belongs to no account.',
      no_provider_account: (v: { emailClaim: string }) =>
        `The identity provider's token names no account here (claim "${v.emailClaim}").`,
      unknown: 'The access token is not known.',
      oauth_expired: 'The OAuth access token has expired: refresh it at POST /oauth/token.',
      oauth_revoked: 'The app connection (OAuth grant) behind this access token was revoked.',
    }),
  },
  token_expired: {
    status: 401,
    title: 'Access token expired',
    resolution: 'Sign in again with POST /auth/v1/token, or create a new personal access token.',
    detail: 'The access token has expired.',
  },
  token_revoked: {
    status: 401,
    title: 'Access token revoked',
    resolution: 'Create a new personal access token with POST /api/v1/tokens.',
    detail: byReason({
      signed_out: 'This session was signed out.',
      revoked: 'The personal access token has been revoked.',
      password_changed: "This session ended when the account's password was changed: sign in again.",
    }),
  },
  invalid_credentials: {
    status: 401,
    title: 'Wrong email or password',
    resolution: 'Check the email and password. Repeated failures are throttled.',
    detail: 'The email or password is wrong.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    resolution: 'Wait for the number of seconds in the Retry-After header, then try again.',
    detail: (v: { limit: keyof typeof RATE_LIMITED_ATTEMPTS; retryAfter: number }) =>
      `Too many ${RATE_LIMITED_ATTEMPTS[v.limit]}; try again in ${v.retryAfter} s.`,
  },
  sign_in_busy: {
    status: 503,
    title: 'Too many sign-ins at once',
    resolution:
      'The service checks only a few passwords at a time to bound its memory: wait for the number of seconds in the Retry-After header, then sign in again.',
    detail: (v: { retryAfter: number }) =>
      `Too many passwords are being checked at once; try again in ${v.retryAfter} s.`,
  },
  brand_key_not_allowed: {
    status: 403,
    title: 'Brand read keys cannot call this route',
    resolution:
      'A brand read key only reads brand context (POST /functions/v1/brand-agent). Use a user access token here.',
    detail: 'Brand read keys can only call POST /functions/v1/brand-agent.',
  },
  api_key_invalid: {
    status: 401,
    title: 'Invalid workspace API key',
    resolution: `Check that the whole key was copied (wsk_ followed by 36 letters and digits). ${API_KEY_REPLACE}`,
    detail: byReason({
      format: 'The workspace API key is malformed (wrong length or checksum).',
      unknown: 'The workspace API key is not known to this service.',
    }),
  },
  api_key_expired: {
    status: 401,
    title: 'Workspace API key expired',
    resolution: API_KEY_REPLACE,
    detail: (v: { prefix: string; expiresAt: string }) =>
      `The workspace API key ${v.prefix}… expired at ${v.expiresAt}.`,
  },
  api_key_revoked: {
    status: 401,
    title: 'Workspace API key revoked',
    resolution: API_KEY_REPLACE,
    detail: (v: { prefix: string }) => `The workspace API key ${v.prefix}… was revoked.`,
  },
  api_key_not_allowed: {
    status: 403,
    title: 'Workspace API keys cannot call this route',
    resolution:
      'A workspace API key only reaches the campaign drafts of its workspace (/api/v1/workspaces/{id}/campaigns). Use a user access token here.',
    detail: 'Workspace API keys can only call the campaign routes of their workspace.',
  },
  email_key_missing: {
    status: 401,
    title: 'Missing transactional email key',
    resolution: `Send "Authorization: Bearer tek_…" with a transactional email key of the workspace. ${EMAIL_KEY_ASK}`,
    detail: 'No transactional email key was sent.',
  },
  email_key_invalid: {
    status: 401,
    title: 'Invalid transactional email key',
    resolution: `Check that the whole key was copied (tek_ followed by 36 letters and digits). ${EMAIL_KEY_ASK}`,
    detail: byReason({
      format: 'The transactional email key is malformed (wrong length or checksum).',
      unknown: 'The transactional email key is not known to this service.',
      scheme: 'The Authorization header must be "Bearer tek_…".',
      wrong_kind: (v: { label: string; prefix: string }) =>
        `A ${v.label} (${v.prefix}…) cannot send email: /email/v1 takes only transactional email keys (tek_…).`,
      user_token: 'Access tokens cannot send email: /email/v1 takes only transactional email keys (tek_…).',
    }),
  },
  email_key_expired: {
    status: 401,
    title: 'Transactional email key expired',
    resolution: EMAIL_KEY_ASK,
    detail: (v: { prefix: string; expiresAt: string }) =>
      `The transactional email key ${v.prefix}… expired at ${v.expiresAt}.`,
  },
  email_key_revoked: {
    status: 401,
    title: 'Transactional email key revoked',
    resolution: EMAIL_KEY_ASK,
    detail: (v: { prefix: string }) => `The transactional email key ${v.prefix}… was revoked.`,
  },
  email_key_not_allowed: {
    status: 403,
    title: 'Transactional email keys cannot call this route',
    resolution:
      'A transactional email key only sends and reads the workspace’s email (/email/v1/messages). Use a user access token here.',
    detail: 'Transactional email keys can only call /email/v1.',
  },
  sender_not_allowed: {
    status: 422,
    title: 'Sender not allowed',
    resolution:
      'Send from an address or domain the workspace is allowed to use (Settings → Email lists them); the operator adds one with brand-context email-senders add.',
    detail: (v: { from: string }) => `${v.from} is not an allowed sender of this workspace.`,
  },
  sender_misleading: {
    status: 422,
    title: 'Sender would mislead recipients',
    resolution:
      'Name the sender plainly, e.g. "Acme Coffee <hello@acme.example>": no @, < or > in the display name of from or reply_to (mail clients show the name instead of the address), and no % or ! before the @ of from (a relay may route on them).',
    detail: byReason({
      display_name: (v: { field: string; name: string }) =>
        `The display name of ${v.field} ("${v.name}") looks like an email address: recipients would read it as the sender.`,
      source_route: (v: { address: string }) =>
        `${v.address} has % or ! before its @: an old source route, which a relay may send on to another host.`,
    }),
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency-Key already used for another request',
    resolution:
      'An Idempotency-Key names one request for 24 hours: send a new key for a different message, or the same body to get the first answer again.',
    detail: (v: { key: string }) =>
      `Idempotency-Key "${v.key}" was used in the last 24 hours with a different request.`,
  },
  email_message_not_found: {
    status: 404,
    title: 'Message not found',
    resolution:
      'List the messages to find its id: GET /email/v1/messages with the transactional email key, or Settings → Email in the console.',
    detail: byReason({
      unknown: (v: { messageId: string }) => `This workspace has no message ${v.messageId}.`,
      not_captured: (v: { messageId: string; status: string }) =>
        `Message ${v.messageId} was not captured (it is ${v.status}): only captured messages can be read here.`,
      no_html: (v: { messageId: string }) => `Captured message ${v.messageId} has no HTML body.`,
    }),
  },
  email_sender_not_found: {
    status: 404,
    title: 'Not an allowed sender',
    resolution: 'List the allowed senders to find it (brand-context email-senders list --workspace <id>).',
    detail: (v: { sender: string }) => `${v.sender} is not an allowed sender of this workspace.`,
  },
  suppression_not_found: {
    status: 404,
    title: 'Address not suppressed',
    resolution:
      'List the suppressed addresses to find it: Settings → Email, GET /api/v1/workspaces/{id}/email-suppressions, or brand-context email-suppressions list.',
    detail: (v: { email: string }) => `${v.email} is not suppressed in this workspace.`,
  },
  link_invalid: {
    status: 400,
    title: 'This link cannot be used',
    resolution:
      'Ask for a new link: a password reset from the sign-in page, or a new invite from a workspace owner or admin.',
    detail: byReason({
      unknown: 'The link is not valid: it may be mistyped or cut short.',
      used: 'The link was already used: each link works once.',
      expired: 'The link has expired.',
      replaced: 'A newer link was sent; use the one in the latest email.',
      withdrawn: 'This invitation was withdrawn: the account is no longer a member of the workspace.',
    }),
  },
  csrf_failed: {
    status: 403,
    title: 'Missing or invalid CSRF token',
    resolution:
      'Writes made with the console session cookie must send the csrf_token of GET /auth/v1/session in the X-CSRF-Token header; scripts should use "Authorization: Bearer <token>" instead of the cookie.',
    detail: 'This write came with the session cookie but without a valid X-CSRF-Token.',
  },
  session_required: {
    status: 403,
    title: 'Sign in to do this',
    resolution:
      'Personal access tokens cannot create tokens: sign in with POST /auth/v1/token and use that token.',
    detail: 'A personal access token cannot create tokens.',
  },
  consent_requires_session: {
    status: 403,
    title: 'Sign in to connect an app',
    resolution: 'Sign in to the console and connect the app there: a personal access token cannot.',
    detail: 'A personal access token cannot connect apps (OAuth consent) for its user.',
  },
  invalid_authorization_request: {
    status: 400,
    title: 'Invalid authorization request',
    resolution:
      'Start connecting again from the app that sent you here. If it keeps failing, the app is set up wrongly: see docs/oauth.md.',
    detail: (v: { why: string }) => `The app's authorization request cannot be answered: ${v.why}.`,
  },
  insufficient_role: {
    status: 403,
    title: 'Your role does not allow this',
    resolution: 'Ask a workspace owner or admin to do it, or to change your role.',
    detail: byReason({
      permission: (v: { role: string; permission: string }) =>
        `The ${v.role} role does not allow ${v.permission} in this workspace.`,
      manage_member: (v: { role: string; memberRole: string }) =>
        `An ${v.role} cannot add or remove an ${v.memberRole}.`,
    }),
  },
  workspace_forbidden: {
    status: 403,
    title: 'No access to this workspace',
    resolution: 'Confirm that the key was created within that workspace.',
    detail: byReason({
      not_member: (v: { workspaceId: string }) => `You are not a member of workspace ${v.workspaceId}.`,
      brand_key: (v: { workspaceId: string }) => `This key was not created in workspace ${v.workspaceId}.`,
      api_key: (v: { workspaceId: string }) =>
        `This workspace API key belongs to another workspace than ${v.workspaceId}.`,
      email_key: (v: { workspaceId: string }) =>
        `This transactional email key belongs to another workspace than ${v.workspaceId}.`,
      oauth_grant: (v: { workspaceId: string }) =>
        `This app was connected (OAuth grant) to another workspace than ${v.workspaceId}.`,
    }),
  },
  insufficient_scope: {
    status: 403,
    title: 'The connection does not allow this',
    resolution:
      'Connect the app again and allow the scope it needs (Settings → Agent Access lists connected apps).',
    detail: (v: { permission: string }) =>
      `The app's connection (OAuth grant) does not allow ${v.permission}.`,
  },
  host_forbidden: {
    status: 403,
    title: 'Host not allowed',
    resolution:
      'Reach /mcp at PUBLIC_URL (or on this machine at localhost). Behind a reverse proxy, have it pass the Host header on, or X-Forwarded-Host with TRUST_PROXY set.',
    detail: (v: { host: string }) =>
      `Requests to /mcp naming the host ${v.host} are refused (DNS rebinding protection).`,
  },
  origin_forbidden: {
    status: 403,
    title: 'Origin not allowed',
    resolution:
      "Call /mcp from the service's own origin (PUBLIC_URL), or have the operator add this origin to MCP_ALLOWED_ORIGINS.",
    detail: (v: { origin: string }) =>
      `Requests to /mcp from web pages of ${v.origin} are refused (DNS rebinding protection).`,
  },
  workspace_not_found: {
    status: 404,
    title: 'Workspace not found',
    resolution: 'Check the workspace id in Settings → Agent Access.',
    detail: (v: { workspaceId: string }) => `Workspace ${v.workspaceId} does not exist.`,
  },
  key_not_found: {
    status: 404,
    title: 'Brand read key not found',
    resolution: 'List the workspace keys to find the key id (brand-context keys list --workspace <id>).',
    detail: (v: { workspaceId: string; keyId: string }) =>
      `Workspace ${v.workspaceId} has no brand read key ${v.keyId}.`,
  },
  email_key_not_found: {
    status: 404,
    title: 'Transactional email key not found',
    resolution:
      'List the transactional email keys to find the key id (brand-context email-keys list --workspace <id>).',
    detail: (v: { workspaceId: string; keyId: string }) =>
      `Workspace ${v.workspaceId} has no transactional email key ${v.keyId}.`,
  },
  api_key_not_found: {
    status: 404,
    title: 'Workspace API key not found',
    resolution:
      'List the workspace API keys to find the key id (brand-context api-keys list --workspace <id>).',
    detail: (v: { workspaceId: string; keyId: string }) =>
      `Workspace ${v.workspaceId} has no workspace API key ${v.keyId}.`,
  },
  campaign_not_found: {
    status: 404,
    title: 'Campaign not found',
    resolution: 'List the campaigns to find its id (GET /api/v1/workspaces/{id}/campaigns).',
    detail: (v: { workspaceId: string; campaignId: string }) =>
      `Workspace ${v.workspaceId} has no campaign ${v.campaignId}.`,
  },
  member_not_found: {
    status: 404,
    title: 'Member not found',
    resolution: 'List the workspace members to find the user id (GET /api/v1/workspaces/{id}/members).',
    detail: (v: { userId: string }) => `User ${v.userId} is not a member of this workspace.`,
  },
  oauth_grant_not_found: {
    status: 404,
    title: 'Connected app not found',
    resolution:
      'List the connected apps to find the grant id (GET /api/v1/workspaces/{id}/oauth-grants); a revoked one is no longer listed.',
    detail: (v: { grantId: string }) => `This workspace has no connected app (OAuth grant) ${v.grantId}.`,
  },
  token_not_found: {
    status: 404,
    title: 'Access token not found',
    resolution: 'List your personal access tokens to find the token id (GET /api/v1/tokens).',
    detail: (v: { tokenId: string }) => `You have no personal access token ${v.tokenId}.`,
  },
  webhook_not_found: {
    status: 404,
    title: 'Webhook endpoint not found',
    resolution: 'List the endpoints to find its id (GET /api/v1/workspaces/{id}/webhooks).',
    detail: (v: { workspaceId: string; webhookId: string }) =>
      `Workspace ${v.workspaceId} has no webhook endpoint ${v.webhookId}.`,
  },
  delivery_not_found: {
    status: 404,
    title: 'Delivery not found',
    resolution:
      'List the endpoint’s deliveries to find its id (GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries).',
    detail: (v: { webhookId: string; deliveryId: string }) =>
      `Webhook endpoint ${v.webhookId} has no delivery ${v.deliveryId}.`,
  },
  secret_unreadable: {
    status: 500,
    title: 'The signing secret cannot be read',
    resolution:
      'The operator must run every node and the CLI with the BRAND_CONTEXT_ENCRYPTION_KEY the secret was sealed with; or rotate the secret (POST …/rotate-secret), which seals a new one with the current key.',
    detail: 'This endpoint’s signing secret was sealed with another encryption key than the service has now.',
  },
  delivery_in_progress: {
    status: 409,
    title: 'The delivery is being attempted',
    resolution: 'Wait for the attempt to finish (at most 10 seconds), then retry it if it failed.',
    detail: (v: { deliveryId: string }) => `Delivery ${v.deliveryId} is being sent right now.`,
  },
  webhook_disabled: {
    status: 409,
    title: 'The endpoint is disabled',
    resolution:
      'Enable it first (PATCH … {"enabled": true}), then send the test event or retry the delivery again.',
    detail: (v: { webhookId: string }) => `Webhook endpoint ${v.webhookId} is disabled and receives nothing.`,
  },
  webhook_limit_reached: {
    status: 409,
    title: 'Too many webhook endpoints',
    resolution:
      'Delete an endpoint you no longer use (DELETE /api/v1/workspaces/{id}/webhooks/{webhook_id}), or send several event types to one endpoint; the operator can raise WEBHOOK_ENDPOINT_LIMIT.',
    detail: (v: { workspaceId: string; limit: number }) =>
      `Workspace ${v.workspaceId} has ${String(v.limit)} webhook endpoints, as many as one workspace may have.`,
  },
  member_exists: {
    status: 409,
    title: 'Already a member',
    resolution: 'Remove the member first to add them again with another role.',
    detail: (v: { email: string }) => `${v.email} is already a member of this workspace.`,
  },
  invite_not_needed: {
    status: 409,
    title: 'The member has a password',
    resolution:
      'They sign in with the password they have; if they forgot it, "Forgot password?" on the sign-in page sends them a reset link.',
    detail: (v: { email: string }) =>
      `${v.email} has set a password already: there is nothing to invite them to.`,
  },
  account_has_password: {
    status: 409,
    title: 'The account already has a password',
    resolution:
      'Add the member without a temporary password: they sign in with the password they have. Only they (or an operator with brand-context users set-password) can change it.',
    detail: (v: { email: string }) =>
      `${v.email} already has a password of their own, which a temporary one must not replace.`,
  },
  campaign_not_draft: {
    status: 409,
    title: 'Only drafts can change',
    resolution: 'This campaign is scheduled or sent; create a new draft instead.',
    detail: (v: { campaignId: string; status: string }) =>
      `Campaign ${v.campaignId} is ${v.status}; only drafts change.`,
  },
  version_mismatch: {
    status: 412,
    title: 'The campaign changed since you read it',
    resolution:
      'Someone else changed it meanwhile: read the campaign again, reapply your edit to it, and send the new ETag in If-Match.',
    detail: (v: { campaignId: string; version: number }) =>
      `Campaign ${v.campaignId} is at version ${v.version}, not the one in If-Match.`,
  },
  precondition_failed: {
    status: 412,
    title: 'The brand changed since you read it',
    resolution:
      'Someone else saved the brand meanwhile: read it again (GET /api/v1/workspaces/{id}/brand), reapply your change to it, and send its ETag in If-Match.',
    detail: (v: { workspaceId: string; version: number }) =>
      `The brand of ${v.workspaceId} is at version ${String(v.version)}, not the one in If-Match.`,
  },
  version_not_found: {
    status: 404,
    title: 'Brand version not found',
    resolution:
      'List the versions (GET /api/v1/workspaces/{id}/brand/versions, or History in the console) and ask for one of them; leave version out to read the latest.',
    detail: (v: { workspaceId: string; version: number }) =>
      `The brand of ${v.workspaceId} has no version ${String(v.version)}.`,
  },
  review_required: {
    status: 409,
    title: 'Brand changes need review in this workspace',
    resolution:
      'Save your change to the draft (PUT /api/v1/workspaces/{id}/brand/draft); an owner or admin publishes it (POST …/brand/draft/publish).',
    detail: (v: { workspaceId: string }) =>
      `Workspace ${v.workspaceId} requires review: the published brand changes only when a draft is published.`,
  },
  draft_not_found: {
    status: 404,
    title: 'No brand draft',
    resolution:
      "Start one with PUT /api/v1/workspaces/{id}/brand/draft (the console's brand editor does when review is on).",
    detail: (v: { workspaceId: string }) => `Workspace ${v.workspaceId} has no unpublished brand draft.`,
  },
  draft_precondition_failed: {
    status: 412,
    title: 'The draft changed since you read it',
    resolution:
      'Someone else saved the draft meanwhile: read it again (GET /api/v1/workspaces/{id}/brand/draft), reapply your change, and send its ETag in If-Match.',
    detail: (v: { workspaceId: string; revision: number | null }) =>
      v.revision === null
        ? `Workspace ${v.workspaceId} has no draft, so If-Match cannot match one.`
        : `The brand draft of ${v.workspaceId} is at revision ${String(v.revision)}, not the one in If-Match.`,
  },
  draft_outdated: {
    status: 409,
    title: 'The published brand changed since the draft was saved',
    resolution:
      'Open the draft, review its changes against the published version, and save it again (PUT …/brand/draft) before publishing.',
    detail: (v: { workspaceId: string; baseVersion: number; version: number }) =>
      `The draft of ${v.workspaceId} was saved against version ${String(v.baseVersion)}; the published brand is at version ${String(v.version)}.`,
  },
  review_off: {
    status: 409,
    title: 'Brand review is off in this workspace',
    resolution:
      'Review is off in this workspace: save to the brand directly, PUT /api/v1/workspaces/{id}/brand (or turn review on: PATCH /api/v1/workspaces/{id} {"brand_review":"required"}).',
    detail: (v: { workspaceId: string }) =>
      `Workspace ${v.workspaceId} does not review brand changes, so it keeps no draft.`,
  },
  draft_pending: {
    status: 409,
    title: 'A brand draft is waiting',
    resolution:
      'Publish or discard the draft first (POST /api/v1/workspaces/{id}/brand/draft/publish, or DELETE …/brand/draft), then turn review off.',
    detail: (v: { workspaceId: string }) =>
      `Workspace ${v.workspaceId} has an unpublished brand draft: turning review off would strand it.`,
  },
  last_owner: {
    status: 409,
    title: 'A workspace needs an owner',
    resolution: 'Add another owner before removing this one.',
    detail: 'This is the workspace’s only owner.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    resolution:
      'Check the method and path against the API reference at /docs (/openapi.json); brand context is read with POST /functions/v1/brand-agent.',
    detail: byReason({
      route: (v: { method: string; path: string }) => `No route ${v.method} ${v.path}.`,
      unrouted: 'No such route.',
    }),
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    resolution: 'Use the method named in the Allow header.',
    detail: (v: { method: string }) => `${v.method} is not supported here; use POST.`,
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    resolution: 'Send a JSON body with "Content-Type: application/json".',
    detail: 'The body must be JSON sent with "Content-Type: application/json".',
  },
  payload_too_large: {
    status: 413,
    title: 'Request body too large',
    resolution:
      'Send a smaller body: the read operation takes only {"action":"context","workspace_id":"…"} (at most 16 KiB), a campaign draft at most 4 MiB, a message to POST /email/v1/messages at most 5 MiB.',
    detail: byReason({
      body: 'The request body exceeds the size limit.',
      chunk_extensions: 'The chunk extensions of the body are too large.',
    }),
  },
  invalid_json: {
    status: 400,
    title: 'Body is not valid JSON',
    resolution:
      'Send one JSON object with Content-Type: application/json, shaped as the API reference (/docs) shows for this route; the read operation takes {"action":"context","workspace_id":"ws_…"}.',
    detail: byReason({
      empty: 'The body is empty; a JSON object was expected.',
      syntax: 'The body is not valid JSON.',
    }),
  },
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    resolution: 'Correct the fields named in the detail and send the request again.',
    detail: byReason({
      // Validation: one summary of every field issue, as the CLI and the HTTP schemas each name them.
      input: (v: { subject: string; fields: readonly FieldIssue[] }) =>
        `${v.subject}: ${v.fields.map((issue) => `${issue.field || 'body'} ${issue.message}`).join('; ')}.`,
      schema: (v: { fields: readonly FieldIssue[] }) =>
        `Invalid request: ${v.fields.map((issue) => (issue.field ? `${issue.field} ${issue.message}` : `the body ${issue.message}`)).join('; ')}.`,
      no_account: (v: { email: string }) => `There is no account for ${v.email}.`,
      cursor: 'The cursor is not one this API returned.',
      too_deep: (v: { maxDepth: number }) =>
        `The body nests arrays and objects more than ${v.maxDepth} levels deep.`,
      content_length: 'The Content-Length header does not match the body.',
      unreadable: 'The request could not be understood.',
    }),
  },
  unsupported_action: {
    status: 400,
    title: 'Unsupported action',
    resolution: 'Set "action" to "context", the only action this operation supports.',
    detail: (v: { action: string }) => `Action "${v.action.slice(0, 64)}" is not supported; use "context".`,
  },
  metrics_token_required: {
    status: 401,
    title: 'Missing metrics token',
    resolution:
      'This service sets METRICS_TOKEN: configure the scraper to send it as "Authorization: Bearer <METRICS_TOKEN>" (Prometheus: authorization.credentials_file).',
    detail: byReason({
      missing: 'GET /metrics needs the METRICS_TOKEN as a bearer token; none was sent.',
      scheme: (v: { scheme: string }) =>
        `A credential was sent with the ${v.scheme} scheme; send the METRICS_TOKEN as "Authorization: Bearer <METRICS_TOKEN>".`,
      malformed:
        'The Authorization header is not "Bearer <METRICS_TOKEN>": one token after Bearer, nothing else.',
    }),
  },
  invalid_metrics_token: {
    status: 401,
    title: 'Wrong metrics token',
    resolution:
      'Send this service\'s METRICS_TOKEN exactly as set, as "Authorization: Bearer <METRICS_TOKEN>".',
    detail: 'The bearer token is not the METRICS_TOKEN this service was started with.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    resolution:
      'The service is restarting or cannot reach its database: try again shortly (after Retry-After seconds when given). Operators: if it persists, check DATABASE_URL and the database.',
    detail: byReason({
      shutting_down: 'The service is shutting down.',
      database: (v: { cause: string }) => `The database is unavailable: ${v.cause}.`,
    }),
  },
  bad_request: {
    status: 400,
    title: 'Malformed HTTP request',
    resolution:
      'Send a well-formed HTTP/1.1 request: a standard method (not CONNECT), a path with valid percent-encoding (%XX, UTF-8), a Host header, and either one Content-Length or Transfer-Encoding: chunked.',
    detail: byReason({
      // llhttp's reason is a fixed description of the rule broken, never the offending bytes.
      http: (v: { parserReason?: string }) =>
        `The request is not valid HTTP/1.1${v.parserReason === undefined ? '' : ` (${v.parserReason})`}.`,
      no_host: 'An HTTP/1.1 request must carry a Host header.',
      connect: 'CONNECT is not supported: this service is not a proxy.',
      url: 'The URL is not valid: every % must begin a percent-encoded UTF-8 byte such as %2F.',
    }),
  },
  request_timeout: {
    status: 408,
    title: 'Request not received in time',
    resolution:
      'Send the headers and the whole body without pausing, then try again on a new connection; very slow links may need the operator to raise HTTP_REQUEST_TIMEOUT.',
    detail: 'The request did not arrive in time: its headers or body stalled.',
  },
  uri_too_long: {
    status: 414,
    title: 'URL too long',
    resolution: 'Check the ids in the path: none is longer than 100 characters.',
    detail: 'A path segment of the URL is longer than 100 characters.',
  },
  expectation_failed: {
    status: 417,
    title: 'Expectation not supported',
    resolution: 'Send no Expect header, or "Expect: 100-continue".',
    detail: 'Only "Expect: 100-continue" is supported.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request headers too large',
    resolution: 'Send a shorter URL and fewer or shorter headers: together they may take at most 16 KiB.',
    detail: 'The request line and headers are longer than 16 KiB.',
  },
  storage_full: {
    status: 507,
    title: 'Database storage full',
    resolution:
      'Nothing was saved; try again later. Operators: free disk space (or raise the quota) where the database keeps its files.',
    detail: (v: { cause: string }) => `The database has no space left: ${v.cause}. Nothing was saved.`,
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    resolution: 'Try again. If it persists, report the request_id to the service operator.',
    detail: 'An unexpected error occurred.',
  },
} as const satisfies Record<string, ProblemDefinition>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface FieldIssue {
  /** Where the problem is, e.g. `knowledge[2].kind`; empty for the document itself. */
  field: string;
  message: string;
}

type Template<C extends ProblemCode> = Exclude<(typeof PROBLEMS)[C]['detail'], string>;

/**
 * The values `code`'s detail needs: none for fixed text. For a code known only as a union (a key kind's
 * `expired`), the values every member needs: inferring from the templates' parameters intersects them.
 */
export type DetailValues<C extends ProblemCode> = [Template<C>] extends [never]
  ? undefined
  : [Template<C>] extends [(values: infer V) => string]
    ? V
    : never;

export interface ProblemOptions {
  /** The field issues of an `invalid_request`; by default those its detail values name. */
  fields?: readonly FieldIssue[];
  /** Response headers the error implies (`Allow`, `Retry-After`); the HTTP layer sends them. */
  headers?: Readonly<Record<string, string>>;
  /** The code's resolution, when this caller needs other advice than the table's. */
  advice?: string;
}

/** A fixed detail takes no values; a template, the ones it names. */
type ProblemArgs<C extends ProblemCode> =
  undefined extends DetailValues<C>
    ? [values?: undefined, options?: ProblemOptions]
    : [values: DetailValues<C>, options?: ProblemOptions];

interface FieldList {
  fields: readonly FieldIssue[];
}

/** The one error type the service raises on purpose; the HTTP layer and the CLI render it. */
class ProblemError extends Error {
  override readonly name = 'AppError';
  readonly detail: string;
  readonly fields: readonly FieldIssue[];
  readonly headers: Readonly<Record<string, string>>;
  private readonly advice: string | undefined;

  constructor(
    readonly code: ProblemCode,
    values?: object,
    { fields, headers = {}, advice }: ProblemOptions = {},
  ) {
    const detail = render(PROBLEMS[code].detail, values);
    // A refusal (4xx) is answered, never logged with its stack: capturing one is most of its construction's
    // cost (about 5 µs), paid on every 429 of a spent read budget. Failures (5xx) keep theirs.
    // (V8's Error.stackTraceLimit; the console's build shares this file without Node's types.)
    const v8Error = Error as ErrorConstructor & { stackTraceLimit?: number };
    const stackTraceLimit = v8Error.stackTraceLimit;
    if (PROBLEMS[code].status < 500) v8Error.stackTraceLimit = 0;
    super(detail);
    v8Error.stackTraceLimit = stackTraceLimit;
    this.detail = detail;
    // A validation detail summarises its field issues: they are the problem's field list too.
    this.fields = fields ?? (values !== undefined && 'fields' in values ? (values as FieldList).fields : []);
    this.headers = headers;
    this.advice = advice;
  }

  get status(): number {
    return PROBLEMS[this.code].status;
  }

  get resolution(): string {
    return this.advice ?? PROBLEMS[this.code].resolution;
  }
}

export type AppError = ProblemError;

/**
 * `new AppError(code, values, options)`, with the values checked against `code`'s detail template. A class
 * constructor cannot take type parameters, so the class is exported through this generic signature.
 */
export const AppError = ProblemError as new <C extends ProblemCode>(
  code: C,
  ...args: ProblemArgs<C>
) => AppError;
