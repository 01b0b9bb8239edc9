import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { type AddressPolicy, isPublicAddress, refuseWebhookUrl } from '../../core/webhook-address.js';

/** A Client ID Metadata Document is small: anything larger is refused unread. */
const MAX_DOCUMENT_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 5000;

/** Why a client's metadata document could not be had: the authorization request names it. */
export class ClientDocumentUnavailable extends Error {}

/**
 * The socket's own lookup, refusing a name that resolves to an address that is not public: the address
 * judged is the one connected to (DNS rebinding), as webhook delivery does (docs/webhooks.md "Webhooks",
 * address rules).
 */
function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 4);
        return;
      }
      const refused = policy.allowPrivate
        ? undefined
        : addresses.find((address) => !isPublicAddress(address.address));
      const [first] = addresses;
      if (refused !== undefined || first === undefined) {
        const reason =
          refused === undefined ? `${hostname} has no address` : `${hostname} is not a public address`;
        callback(new ClientDocumentUnavailable(reason), '', 4);
        return;
      }
      if (options.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

function readCapped(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DOCUMENT_BYTES) {
        response.destroy(new ClientDocumentUnavailable('the document is larger than 64 KiB'));
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    response.on('error', reject);
  });
}

/**
 * GETs a client's metadata document under the webhook address rules (WEBHOOK_ALLOW_PRIVATE_URLS): https to a
 * public address only, no redirects, 5 s, 64 KiB. Answers its JSON; throws ClientDocumentUnavailable.
 */
export async function fetchClientDocument(url: string, policy: AddressPolicy): Promise<unknown> {
  const refused = refuseWebhookUrl(url, policy);
  if (refused !== undefined) throw new ClientDocumentUnavailable(`its URL ${refused}`);
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const body = await new Promise<string>((resolve, reject) => {
    const request = send(
      target,
      {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'Brand-Context-OAuth/1' },
        lookup: guardedLookup(policy),
        timeout: FETCH_TIMEOUT_MS,
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          response.resume();
          reject(new ClientDocumentUnavailable(`fetching it answered HTTP ${String(status)}`));
          return;
        }
        readCapped(response).then(resolve, reject);
      },
    );
    const deadline = setTimeout(() => {
      request.destroy(new ClientDocumentUnavailable('it did not arrive within 5 s'));
    }, FETCH_TIMEOUT_MS);
    request.on('close', () => {
      clearTimeout(deadline);
    });
    request.on('timeout', () =>
      request.destroy(new ClientDocumentUnavailable('it did not arrive within 5 s')),
    );
    request.on('error', reject);
    request.end();
  }).catch((error: unknown) => {
    if (error instanceof ClientDocumentUnavailable) throw error;
    throw new ClientDocumentUnavailable(`it could not be fetched (${(error as Error).message})`);
  });
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new ClientDocumentUnavailable('it is not JSON');
  }
}
