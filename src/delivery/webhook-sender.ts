import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { type AddressPolicy, isPublicAddress } from '../core/webhook-address.js';

/** docs/webhooks.md "Webhooks": 10 s for the whole attempt, at most 64 KiB of the answer read, redirects not followed. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of a failed answer's body the delivery log keeps, to say why. */
const ERROR_BODY_CHARS = 200;

export interface AttemptResult {
  /** The response's status; null when there was none (refused address, no connection, timeout). */
  status: number | null;
  ok: boolean;
  durationMs: number;
  error: string | null;
}

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** Resolves a host name to its addresses (node:dns `lookup` with `all`); tests pass their own. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses);
    });
  });

class RefusedAddress extends Error {}

/**
 * POSTs webhooks under the address rules. The address is checked after DNS resolution, in the socket's own
 * lookup: the address judged is the one connected to, so a name that resolves to a public address when the
 * endpoint is saved and to a private one at delivery (DNS rebinding) is refused.
 */
export class WebhookSender {
  constructor(
    private readonly policy: AddressPolicy,
    private readonly resolve: Resolver = systemResolver,
    private readonly timeoutMs = WEBHOOK_TIMEOUT_MS,
  ) {}

  private readonly guardedLookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      (addresses) => {
        const refused = this.policy.allowPrivate
          ? undefined
          : addresses.find((address) => !isPublicAddress(address.address));
        const [first] = addresses;
        if (refused !== undefined || first === undefined) {
          const reason =
            refused === undefined
              ? `${hostname} has no address`
              : `${hostname} resolves to ${refused.address}, which is not a public address`;
          callback(new RefusedAddress(reason), '', 4);
          return;
        }
        if (options.all === true) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => {
        callback(error as NodeJS.ErrnoException, '', 4);
      },
    );
  };

  /** One attempt; never throws: every failure is a result the delivery log shows. */
  async send(webhook: WebhookRequest, signal?: AbortSignal): Promise<AttemptResult> {
    const started = performance.now();
    const finish = (status: number | null, error: string | null): AttemptResult => ({
      status,
      ok: status !== null && status >= 200 && status < 300,
      durationMs: Math.round(performance.now() - started),
      error,
    });
    let url: URL;
    try {
      url = new URL(webhook.url);
    } catch {
      return finish(null, 'the URL is not valid');
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.policy.allowPrivate) {
      if (url.protocol !== 'https:') return finish(null, 'only https:// is allowed');
      if (ipaddr.isValid(host) && !isPublicAddress(host))
        return finish(null, `${host} is not a public address`);
    }
    try {
      const response = await this.post(url, webhook, signal);
      const { status, body } = response;
      if (status >= 200 && status < 300) return finish(status, null);
      const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
      const excerpt = body.trim().slice(0, ERROR_BODY_CHARS);
      return finish(status, `HTTP ${String(status)}${redirect}${excerpt === '' ? '' : `: ${excerpt}`}`);
    } catch (error) {
      return finish(null, describeFailure(error));
    }
  }

  private post(
    url: URL,
    webhook: WebhookRequest,
    signal?: AbortSignal,
  ): Promise<{ status: number; body: string }> {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const options: RequestOptions = {
      method: 'POST',
      headers: {
        ...webhook.headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(webhook.body),
        'user-agent': 'Brand-Context-Webhooks/1',
      },
      lookup: this.guardedLookup,
      timeout: this.timeoutMs,
      agent: false,
      ...(signal && { signal }),
    };
    return new Promise((resolve, reject) => {
      const request = send(url, options, (response: IncomingMessage) => {
        readCapped(response).then((body) => {
          resolve({ status: response.statusCode ?? 0, body });
        }, reject);
      });
      // The whole attempt, not only the socket's idleness, is bounded.
      const deadline = setTimeout(() => request.destroy(new TimedOut(this.timeoutMs)), this.timeoutMs);
      request.on('close', () => {
        clearTimeout(deadline);
      });
      request.on('timeout', () => request.destroy(new TimedOut(this.timeoutMs)));
      request.on('error', reject);
      request.end(webhook.body);
    });
  }
}

class TimedOut extends Error {
  constructor(ms: number) {
    super(`no answer within ${String(ms / 1000)} s`);
  }
}

/** The body as text, up to MAX_RESPONSE_BYTES; the rest is not read (the connection is closed). */
function readCapped(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      if (size >= MAX_RESPONSE_BYTES) return;
      chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - size));
      size += chunk.length;
      if (size >= MAX_RESPONSE_BYTES) {
        resolve(Buffer.concat(chunks).toString('utf8'));
        response.destroy();
      }
    });
    response.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    response.on('error', (error) => {
      if (size >= MAX_RESPONSE_BYTES) return;
      reject(error);
    });
  });
}

function describeFailure(error: unknown): string {
  if (error instanceof RefusedAddress || error instanceof TimedOut) return error.message;
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'the host name does not resolve';
  if (code === 'ABORT_ERR') return 'the attempt was stopped';
  return code ? `${code}: ${message}` : message;
}
