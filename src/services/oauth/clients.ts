import { type OAuthClientInformationFullSchema, OAuthClientMetadataSchema } from '@modelcontextprotocol/core';
import type { z } from 'zod';
import { isoAt } from '../../core/clock.js';
import { newId } from '../../core/base62.js';
import { isMetadataDocumentId, OAuthError, redirectHost, redirectUriProblem } from '../../core/oauth.js';
import type { AddressPolicy } from '../../core/webhook-address.js';
import type { OAuthClientRecord } from '../../store/store.js';
import type { Deps } from '../shared/deps.js';
import { ClientDocumentUnavailable, fetchClientDocument } from './client-documents.js';

/** Client metadata (RFC 7591 §2) and a registration's answer (§3.2.1), as the MCP SDK's schemas read them. */
type OAuthClientMetadata = z.output<typeof OAuthClientMetadataSchema>;
export type OAuthClientInformationFull = z.output<typeof OAuthClientInformationFullSchema>;

/** How many redirect URIs one client may register, and how long its name may be. */
const MAX_REDIRECT_URIS = 10;
const MAX_CLIENT_NAME = 200;
/** A metadata document is fetched again once it is this old (docs/oauth.md "Clients"). */
const DOCUMENT_MAX_AGE_MS = 60 * 60 * 1000;

/** What the client use cases take beside the store: the address rules a metadata document is fetched under. */
export interface ClientDeps extends Deps<'oauth'> {
  webhookSettings: AddressPolicy;
}

/**
 * The metadata a public client may have (RFC 7591 §2), checked: redirect URIs by this server's rules, no
 * authentication at the token endpoint, the authorization code and refresh token grants only. Throws the
 * RFC 7591 §3.2.2 error.
 */
function checkedMetadata(input: unknown): OAuthClientMetadata {
  const parsed = OAuthClientMetadataSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new OAuthError('invalid_client_metadata', `${where}${issue?.message ?? 'invalid metadata'}`);
  }
  const metadata = parsed.data;
  const uris = metadata.redirect_uris;
  if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS)
    throw new OAuthError(
      'invalid_redirect_uri',
      `redirect_uris must list 1 to ${String(MAX_REDIRECT_URIS)} URIs`,
    );
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) throw new OAuthError('invalid_redirect_uri', `redirect URI ${uri} ${problem}`);
  }
  const method = metadata.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    throw new OAuthError(
      'invalid_client_metadata',
      'token_endpoint_auth_method must be "none": this server registers public clients only, which prove themselves with PKCE',
    );
  const grants = metadata.grant_types ?? ['authorization_code'];
  if (!grants.every((grant) => grant === 'authorization_code' || grant === 'refresh_token'))
    throw new OAuthError(
      'invalid_client_metadata',
      'grant_types may only be authorization_code and refresh_token',
    );
  if (!(metadata.response_types ?? ['code']).every((type) => type === 'code'))
    throw new OAuthError('invalid_client_metadata', 'response_types may only be code');
  if ((metadata.client_name?.length ?? 0) > MAX_CLIENT_NAME)
    throw new OAuthError(
      'invalid_client_metadata',
      `client_name is longer than ${String(MAX_CLIENT_NAME)} characters`,
    );
  return metadata;
}

/** The name a consent screen shows: the client's own, or where it sends the browser back to. */
function displayName(metadata: OAuthClientMetadata): string {
  const name = metadata.client_name?.trim();
  return name !== undefined && name !== '' ? name : redirectHost(metadata.redirect_uris[0] ?? 'an app');
}

/** Dynamic Client Registration (RFC 7591) of a public client; answers its client information (§3.2.1). */
export async function registerClient(
  deps: Deps<'oauth'>,
  input: unknown,
): Promise<OAuthClientInformationFull> {
  const metadata = checkedMetadata(input);
  const now = isoAt(deps.clock);
  const client: OAuthClientRecord = {
    id: newId('oc'),
    name: displayName(metadata),
    redirectUris: metadata.redirect_uris,
    source: 'registered',
    metadata: { ...metadata },
    createdAt: now,
    refreshedAt: now,
  };
  await deps.store.oauth.saveClient(client);
  return {
    ...metadata,
    client_id: client.id,
    client_id_issued_at: Math.floor(deps.clock.now() / 1000),
    token_endpoint_auth_method: 'none',
    grant_types: metadata.grant_types ?? ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

/**
 * The client a `client_id` names: one registered here, or one whose Client ID Metadata Document is at that
 * URL, fetched (again, once an hour) under the webhook address rules. Throws `invalid_client` with why.
 */
export async function resolveClient(deps: ClientDeps, clientId: string): Promise<OAuthClientRecord> {
  const stored = await deps.store.oauth.getClient(clientId);
  const isDocument = isMetadataDocumentId(clientId, deps.webhookSettings.allowPrivate);
  if (stored && stored.source === 'registered') return stored;
  if (!isDocument) throw new OAuthError('invalid_client', `client_id ${clientId} is not registered here`);
  if (stored && deps.clock.now() - Date.parse(stored.refreshedAt) < DOCUMENT_MAX_AGE_MS) return stored;
  let document: unknown;
  try {
    document = await fetchClientDocument(clientId, deps.webhookSettings);
  } catch (error) {
    if (!(error instanceof ClientDocumentUnavailable)) throw error;
    throw new OAuthError('invalid_client', `the client's metadata document at ${clientId}: ${error.message}`);
  }
  const named = (document as { client_id?: unknown } | null)?.client_id;
  if (named !== clientId)
    throw new OAuthError(
      'invalid_client',
      `the metadata document at ${clientId} must name that URL as its client_id`,
    );
  let metadata: OAuthClientMetadata;
  try {
    metadata = checkedMetadata(document);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    throw new OAuthError('invalid_client', `the metadata document at ${clientId}: ${error.description}`);
  }
  const now = isoAt(deps.clock);
  const client: OAuthClientRecord = {
    id: clientId,
    name: displayName(metadata),
    redirectUris: metadata.redirect_uris,
    source: 'metadata_document',
    metadata: { ...metadata },
    createdAt: stored?.createdAt ?? now,
    refreshedAt: now,
  };
  await deps.store.oauth.saveClient(client);
  return client;
}
