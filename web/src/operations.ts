import { z } from 'zod';
import {
  accessTokenListSchema,
  accessTokenSchema,
  createdAccessTokenSchema,
  newAccessTokenSchema,
} from '../../src/contract/access-tokens';
import {
  linkRequestSchema,
  passwordResetAcceptedSchema,
  passwordResetRequestSchema,
} from '../../src/contract/account-email';
import { auditPageSchema } from '../../src/contract/audit';
import { brandCheckRequestSchema, brandCheckResultSchema } from '../../src/contract/brand-check';
import { brandContextSchema } from '../../src/contract/brand-context';
import {
  brandNoteSchema,
  brandVersionDiffSchema,
  brandVersionPageSchema,
} from '../../src/contract/brand-versions';
import {
  campaignChangesSchema,
  campaignPageSchema,
  campaignSchema,
  newCampaignSchema,
} from '../../src/contract/campaigns';
import {
  capturedEmailSchema,
  emailMessagePageSchema,
  emailMessageSchema,
  emailSenderSchema,
  emailSuppressionSchema,
} from '../../src/contract/email';
import {
  createdKeySchema,
  KEY_VIEW_SCHEMAS,
  LISTED_KEY_SCHEMAS,
  newKeySchema,
} from '../../src/contract/keys';
import {
  addedMemberSchema,
  memberCredentialsSchema,
  memberInviteSchema,
  memberListSchema,
  newMemberSchema,
} from '../../src/contract/members';
import {
  oauthAuthorizationSchema,
  oauthDecisionSchema,
  oauthGrantListSchema,
  oauthRedirectSchema,
} from '../../src/contract/oauth-consent';
import {
  consoleSessionSchema,
  consoleSessionStatusSchema,
  sessionSchema,
  signInRequestSchema,
} from '../../src/contract/session';
import {
  createdWebhookSchema,
  deliveryDetailSchema,
  deliveryPageSchema,
  newWebhookSchema,
  queuedDeliverySchema,
  webhookChangesSchema,
  webhookListSchema,
  webhookSchema,
  webhookSecretSchema,
} from '../../src/contract/webhooks';
import {
  workspaceDetailsSchema,
  workspaceListSchema,
  workspaceUpdateSchema,
} from '../../src/contract/workspaces';
import { brandDocumentSchema } from '../../src/core/brand-context';

/** A 204: the call resolves to undefined. */
const noContent = z.undefined();

/**
 * Every operation the console calls, as `METHOD path` with the path as /openapi.json names it: the body it
 * sends (`request`) and what the call resolves to (`response`), both from the contract (src/contract).
 * `numbersAsTyped`: the body's numbers may be the text typed instead. `{collection}` is a key kind's collection (`KeyKind.collection`): every kind's routes take and answer the
 * same shapes. api.ts takes its types from this table; only the development build loads its schemas, to
 * check each answer against them (docs/console.md "Developing the console").
 */
export const OPERATIONS = {
  'GET /auth/v1/session/status': { response: consoleSessionStatusSchema },
  'POST /auth/v1/session': { request: signInRequestSchema, response: consoleSessionSchema },
  'DELETE /auth/v1/session': { response: noContent },
  'POST /auth/v1/invites/accept': { request: linkRequestSchema, response: sessionSchema },
  'POST /auth/v1/password-reset': {
    request: passwordResetRequestSchema,
    response: passwordResetAcceptedSchema,
  },
  'POST /auth/v1/password-reset/confirm': { request: linkRequestSchema, response: noContent },

  'GET /api/v1/workspaces': { response: workspaceListSchema },
  'GET /api/v1/workspaces/{id}/brand': { response: brandContextSchema },
  // The editor sends a number field's text when it is not a number, for the service to name the field.
  'PUT /api/v1/workspaces/{id}/brand': {
    request: brandDocumentSchema,
    numbersAsTyped: true,
    response: brandContextSchema,
  },
  'GET /api/v1/workspaces/{id}/brand/versions': { response: brandVersionPageSchema },
  'GET /api/v1/workspaces/{id}/brand/versions/{version}': { response: brandContextSchema },
  'GET /api/v1/workspaces/{id}/brand/versions/{version}/diff': { response: brandVersionDiffSchema },
  // 201 with the new version; 200 with the brand as it is when it already holds that content.
  'POST /api/v1/workspaces/{id}/brand/versions/{version}/restore': {
    request: brandNoteSchema,
    response: brandContextSchema,
  },
  'GET /api/v1/workspaces/{id}/brand/draft': { response: brandContextSchema },
  'PUT /api/v1/workspaces/{id}/brand/draft': {
    request: brandDocumentSchema,
    numbersAsTyped: true,
    response: brandContextSchema,
  },
  'DELETE /api/v1/workspaces/{id}/brand/draft': { response: noContent },
  'POST /api/v1/workspaces/{id}/brand/draft/publish': {
    request: brandNoteSchema,
    response: brandContextSchema,
  },
  'GET /api/v1/workspaces/{id}': { response: workspaceDetailsSchema },
  'PATCH /api/v1/workspaces/{id}': { request: workspaceUpdateSchema, response: workspaceDetailsSchema },

  'GET /api/v1/workspaces/{id}/{collection}': {
    response: z.object({ keys: z.array(LISTED_KEY_SCHEMAS.brand) }),
  },
  'POST /api/v1/workspaces/{id}/{collection}': { request: newKeySchema, response: createdKeySchema },
  'DELETE /api/v1/workspaces/{id}/{collection}/{key_id}': { response: KEY_VIEW_SCHEMAS.brand },

  'GET /api/v1/workspaces/{id}/members': { response: memberListSchema },
  'POST /api/v1/workspaces/{id}/members': { request: newMemberSchema, response: addedMemberSchema },
  'GET /api/v1/workspaces/{id}/members/{user_id}/credentials': { response: memberCredentialsSchema },
  // 200 with what `revoke_credentials=true` revoked, else 204.
  'DELETE /api/v1/workspaces/{id}/members/{user_id}': { response: memberCredentialsSchema.optional() },
  'POST /api/v1/workspaces/{id}/members/{user_id}/invite': { response: memberInviteSchema },

  'GET /api/v1/workspaces/{id}/audit-log': { response: auditPageSchema },

  'GET /api/v1/oauth/authorization': { response: oauthAuthorizationSchema },
  'POST /api/v1/oauth/authorization': { request: oauthDecisionSchema, response: oauthRedirectSchema },
  'GET /api/v1/workspaces/{id}/oauth-grants': { response: oauthGrantListSchema },
  'DELETE /api/v1/workspaces/{id}/oauth-grants/{grant_id}': { response: noContent },

  'GET /api/v1/workspaces/{id}/campaigns': { response: campaignPageSchema },
  'POST /api/v1/workspaces/{id}/campaigns': { request: newCampaignSchema, response: campaignSchema },
  'GET /api/v1/workspaces/{id}/campaigns/{campaign_id}': { response: campaignSchema },
  'PATCH /api/v1/workspaces/{id}/campaigns/{campaign_id}': {
    request: campaignChangesSchema,
    response: campaignSchema,
  },

  'GET /api/v1/workspaces/{id}/webhooks': { response: webhookListSchema },
  'POST /api/v1/workspaces/{id}/webhooks': { request: newWebhookSchema, response: createdWebhookSchema },
  'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}': { response: webhookSchema },
  'PATCH /api/v1/workspaces/{id}/webhooks/{webhook_id}': {
    request: webhookChangesSchema,
    response: webhookSchema,
  },
  'DELETE /api/v1/workspaces/{id}/webhooks/{webhook_id}': { response: noContent },
  'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/secret': { response: webhookSecretSchema },
  'POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/rotate-secret': { response: webhookSecretSchema },
  'POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/test': { response: queuedDeliverySchema },
  'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries': { response: deliveryPageSchema },
  'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}': {
    response: deliveryDetailSchema,
  },
  'POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry': {
    response: queuedDeliverySchema,
  },

  'GET /api/v1/workspaces/{id}/email-senders': {
    response: z.object({ senders: z.array(emailSenderSchema) }),
  },
  'GET /api/v1/workspaces/{id}/email-messages': { response: emailMessagePageSchema },
  'GET /api/v1/workspaces/{id}/email-messages/{message_id}': { response: emailMessageSchema },
  'GET /api/v1/workspaces/{id}/email-messages/{message_id}/content': { response: capturedEmailSchema },
  'GET /api/v1/workspaces/{id}/email-suppressions': {
    response: z.object({ suppressions: z.array(emailSuppressionSchema) }),
  },
  'DELETE /api/v1/workspaces/{id}/email-suppressions/{email}': { response: noContent },

  // The on-brand check (docs/brand-check.md): the campaign editor's inline findings, with the session cookie.
  'POST /functions/v1/brand-check': { request: brandCheckRequestSchema, response: brandCheckResultSchema },

  'GET /api/v1/tokens': { response: accessTokenListSchema },
  'POST /api/v1/tokens': { request: newAccessTokenSchema, response: createdAccessTokenSchema },
  'DELETE /api/v1/tokens/{token_id}': { response: accessTokenSchema },
} satisfies Record<string, { request?: z.ZodType; numbersAsTyped?: true; response: z.ZodType }>;

export type Operations = typeof OPERATIONS;

const PARAMETER = /\{[^}]+\}/g;

/**
 * The operation a call made, from its method and its URL's path (the development checks only). A literal
 * segment beats a parameter: GET `…/webhooks` lists webhooks; it is no key collection.
 */
export function operationAt(method: string, pathname: string): Operations[keyof Operations] | undefined {
  const matches = Object.entries(OPERATIONS).filter(([key]) => {
    const [keyMethod, path = ''] = key.split(' ');
    const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(PARAMETER, '[^/]+');
    return keyMethod === method && new RegExp(`^${pattern}$`).test(pathname);
  });
  const parameters = (key: string) => key.match(PARAMETER)?.length ?? 0;
  return matches.sort(([a], [b]) => parameters(a) - parameters(b))[0]?.[1];
}
