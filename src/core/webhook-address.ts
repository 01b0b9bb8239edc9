import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be sent (docs/webhooks.md "Webhooks", address rules): an `https://` URL whose host is public. A URL
 * is judged twice: at creation, by what it says (its scheme, and its host when that is an address or a
 * name that is local by definition), and at every delivery, by the addresses its name resolves to then
 * (DNS can change in between: rebinding).
 */

/** `WEBHOOK_ALLOW_PRIVATE_URLS=true`: `http://` and private or loopback targets, for development and tests. */
export interface AddressPolicy {
  allowPrivate: boolean;
}

/** The only IPv6 block allocated for public (global unicast) addresses. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * The address as a network stack reads it, or undefined for text that is no address. IPv6 goes through the
 * WHATWG URL parser first: ipaddr.js reads `::127.0.0.1` as IPv4-mapped (`::ffff:7f00:1`), but it is
 * IPv4-compatible (`::7f00:1`), and that is the address a socket would connect to.
 */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes(':')) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`http://[${text}]/`).hostname;
  } catch {
    return undefined;
  }
  return ipaddr.IPv6.parse(hostname.slice(1, -1));
}

/**
 * Only ordinary unicast addresses are public (docs/webhooks.md "Webhooks", address rules). ipaddr.js names the IPv4
 * ranges that are not: loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
 * reserved and documentation ranges, multicast. IPv6 must also lie in global unicast (2000::/3) and in no
 * range ipaddr.js names: this refuses unique-local and link-local, and every form that embeds an IPv4
 * address, whatever address it carries — IPv4-compatible (`::7f00:1`, ::/96), IPv4-translated, NAT64
 * (64:ff9b::/96), 6to4 (2002::/16) and Teredo — as a stack, relay or gateway may take any of them to an
 * IPv4 network. IPv4-mapped (`::ffff:10.0.0.1`) is the IPv4 address itself to a dual-stack socket: it is
 * judged as that address.
 */
export function isPublicAddress(text: string): boolean {
  const address = parseAddress(text);
  if (address === undefined) return false;
  if (address instanceof ipaddr.IPv4) return address.range() === 'unicast';
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().range() === 'unicast';
  return address.match(GLOBAL_UNICAST) && address.range() === 'unicast';
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
  // The URL parser has turned every way of writing an address (decimal, hexadecimal, short) into its
  // canonical form: anything else is a name.
  const literal = ipaddr.IPv4.isValidFourPartDecimal(host) || host.includes(':');
  if (literal ? !isPublicAddress(host) : LOCAL_NAMES.test(host.replace(/\.$/, ''))) {
    return `must reach a public address: ${host} is loopback, private or otherwise local`;
  }
  return undefined;
}
