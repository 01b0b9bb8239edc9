import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be sent (README "Webhooks", address rules): an `https://` URL whose host is public. A URL
 * is judged twice: at creation, by what it says (its scheme, and its host when that is an address or a
 * name that is local by definition), and at every delivery, by the addresses its name resolves to then
 * (DNS can change in between: rebinding).
 */

/** `WEBHOOK_ALLOW_PRIVATE_URLS=true`: `http://` and private or loopback targets, for development and tests. */
export interface AddressPolicy {
  allowPrivate: boolean;
}

/**
 * Only ordinary unicast addresses are public. ipaddr.js names every other range: loopback, private,
 * link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, unique-local IPv6, reserved and
 * documentation ranges, multicast, and the IPv6 forms that embed an IPv4 address (6to4, NAT64, Teredo),
 * which could reach a private one. IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 it maps.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** Names that never leave the machine or the local network, whatever DNS says. */
const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i;

/** Why a URL is refused, as the `url` field's message; undefined when it may be used. */
export function refuseWebhookUrl(text: string, policy: AddressPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL such as https://example.com/webhooks';
  }
  const schemes = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    return policy.allowPrivate ? 'must start with https:// or http://' : 'must start with https://';
  }
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (policy.allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host) ? !isPublicAddress(host) : LOCAL_NAMES.test(host.replace(/\.$/, ''))) {
    return `must reach a public address: ${host} is loopback, private or otherwise local`;
  }
  return undefined;
}
