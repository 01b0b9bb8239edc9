import { describe, expect, it } from 'vitest';
import { isPublicAddress, refuseWebhookUrl } from './webhook-address.js';

const STRICT = { allowPrivate: false };
const PRIVATE_ALLOWED = { allowPrivate: true };
const NOT_ABSOLUTE = 'must be an absolute URL such as https://example.com/webhooks';

describe('isPublicAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
  ])('takes %s, an ordinary unicast address, as public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ['0.0.0.0', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback, anywhere in 127/8'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private, the top of 172.16/12'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local: cloud metadata'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT, its top'],
    ['192.0.0.1', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation (TEST-NET-1)'],
    ['198.51.100.1', 'documentation (TEST-NET-2)'],
    ['203.0.113.1', 'documentation (TEST-NET-3)'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('refuses the IPv4 address %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd00::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'Teredo'],
    ['100::1', 'discard-only'],
    ['::127.0.0.1', 'IPv4-compatible, deprecated'],
  ])('refuses the IPv6 address %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('judges an IPv4-mapped IPv6 address as the IPv4 address it maps', () => {
    expect(isPublicAddress('::ffff:10.0.0.1')).toBe(false);
    expect(isPublicAddress('::ffff:127.0.0.1')).toBe(false);
    expect(isPublicAddress('::ffff:169.254.169.254')).toBe(false);
    expect(isPublicAddress('::ffff:8.8.8.8')).toBe(true);
  });

  it.each([
    ['::7f00:1', '127.0.0.1'],
    ['::127.0.0.1', '127.0.0.1, written dotted'],
    ['::a9fe:a9fe', '169.254.169.254, cloud metadata'],
    ['::169.254.169.254', '169.254.169.254, written dotted'],
    ['::a00:1', '10.0.0.1'],
    ['::10.0.0.1', '10.0.0.1, written dotted'],
    ['::c0a8:101', '192.168.1.1'],
    ['::192.168.1.1', '192.168.1.1, written dotted'],
    ['::6440:1', '100.64.0.1, carrier-grade NAT'],
    ['::808:808', '8.8.8.8: the whole range is refused, as no network routes it'],
    ['::8.8.8.8', '8.8.8.8, written dotted'],
    ['::2', '0.0.0.2'],
  ])('refuses %s, an IPv4-compatible IPv6 address (::/96) carrying %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['::ffff:0:7f00:1', 'IPv4-translated (::ffff:0:0:0/96) 127.0.0.1'],
    ['::ffff:0:808:808', 'IPv4-translated (::ffff:0:0:0/96) 8.8.8.8'],
    ['64:ff9b::7f00:1', 'NAT64 (64:ff9b::/96) 127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 (64:ff9b::/96) 169.254.169.254'],
    ['2002:7f00:1::1', '6to4 (2002::/16) 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 (2002::/16) 169.254.169.254'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (2001::/32)'],
    ['::1:7f00:1', 'IETF-reserved (::/8), outside global unicast'],
    ['4000::1', 'unassigned, outside global unicast (2000::/3)'],
  ])('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['::ffff:7f00:1', false],
    ['::ffff:a9fe:a9fe', false],
    ['::ffff:c0a8:101', false],
    ['::ffff:6440:1', false],
    ['::ffff:808:808', true],
  ])('judges the IPv4-mapped %s, written in hexadecimal, as the IPv4 address it maps', (address, public_) => {
    expect(isPublicAddress(address)).toBe(public_);
  });

  it('refuses the IPv6 forms that embed an IPv4 address, 6to4 and NAT64, whatever address they carry', () => {
    // 6to4 of 10.0.0.1 and of 8.8.8.8: a relay could forward either to a private network.
    expect(isPublicAddress('2002:0a00:0001::1')).toBe(false);
    expect(isPublicAddress('2002:0808:0808::1')).toBe(false);
    // NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48).
    expect(isPublicAddress('64:ff9b::a00:1')).toBe(false);
    expect(isPublicAddress('64:ff9b::808:808')).toBe(false);
    expect(isPublicAddress('64:ff9b:1::1')).toBe(false);
  });

  it.each(['', 'example.com', 'not-an-ip', '10.0.0.1/8', '[::1]', '256.0.0.1'])(
    'refuses %j, which is no address at all',
    (text) => {
      expect(isPublicAddress(text)).toBe(false);
    },
  );
});

describe('refuseWebhookUrl', () => {
  it.each([
    'https://example.com/',
    'https://hooks.example.com:8443/in?source=brand-context',
    'HTTPS://EXAMPLE.COM/upper',
    'https://8.8.8.8/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://[::ffff:8.8.8.8]/hook',
    'https://localhost.example.com/',
    'https://notlocalhost/',
  ])('accepts %s', (url) => {
    expect(refuseWebhookUrl(url, STRICT)).toBeUndefined();
  });

  it.each([
    ['not-a-url', NOT_ABSOLUTE],
    ['/relative/path', NOT_ABSOLUTE],
    ['https://', NOT_ABSOLUTE],
    ['', NOT_ABSOLUTE],
    ['http://example.com/', 'must start with https://'],
    ['ftp://example.com/', 'must start with https://'],
    ['javascript:alert(1)', 'must start with https://'],
    ['file:///etc/passwd', 'must start with https://'],
    ['https://user:pass@example.com/', 'must not contain a user name or password'],
    ['https://user@example.com/', 'must not contain a user name or password'],
    ['https://:pass@example.com/', 'must not contain a user name or password'],
  ])('refuses %s: %s', (url, message) => {
    expect(refuseWebhookUrl(url, STRICT)).toBe(message);
  });

  it.each([
    ['https://127.0.0.1/x', '127.0.0.1'],
    ['https://10.0.0.1/', '10.0.0.1'],
    ['https://192.168.0.10:8080/', '192.168.0.10'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['https://0.0.0.0/', '0.0.0.0'],
    ['https://[::1]/', '::1'],
    ['https://[::]/', '::'],
    ['https://[fd00::1]/', 'fd00::1'],
    ['https://[::ffff:10.0.0.1]/', '::ffff:a00:1'],
    ['https://[2002:a00:1::]/', '2002:a00:1::'],
    ['https://[64:ff9b::a00:1]/', '64:ff9b::a00:1'],
    ['https://[::127.0.0.1]/', '::7f00:1'],
    ['https://[::7f00:1]/', '::7f00:1'],
    ['https://[::a9fe:a9fe]/latest/meta-data/', '::a9fe:a9fe'],
    ['https://[::169.254.169.254]/', '::a9fe:a9fe'],
    ['https://[::10.0.0.1]/', '::a00:1'],
    ['https://[::192.168.1.1]/', '::c0a8:101'],
    ['https://[::8.8.8.8]/', '::808:808'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['https://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe'],
    ['https://[::ffff:0:127.0.0.1]/', '::ffff:0:7f00:1'],
    ['https://[64:ff9b::169.254.169.254]/', '64:ff9b::a9fe:a9fe'],
    ['https://[2002:a9fe:a9fe::]/', '2002:a9fe:a9fe::'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  ])('refuses %s, naming the host %s', (url, host) => {
    expect(refuseWebhookUrl(url, STRICT)).toBe(
      `must reach a public address: ${host} is loopback, private or otherwise local`,
    );
  });

  it.each([
    ['decimal', 'https://2130706433/'],
    ['hexadecimal', 'https://0x7f000001/'],
    ['octal', 'https://017700000001/'],
    ['short', 'https://127.1/'],
    ['with a trailing dot', 'https://127.0.0.1./'],
  ])('refuses loopback written in %s form, as the URL parser reads it', (_form, url) => {
    expect(refuseWebhookUrl(url, STRICT)).toMatch(/^must reach a public address: 127\.0\.0\.1 /);
  });

  it.each([
    'https://localhost/',
    'https://LOCALHOST/',
    'https://localhost./',
    'https://api.localhost/',
    'https://printer.local/',
    'https://printer.local./',
    'https://db.internal/',
    'https://host.localdomain/',
    'https://router.home.arpa/',
    'https://%6c%6f%63%61%6c%68%6f%73%74/',
  ])(
    'refuses %s, a name that is local by definition (a trailing dot or percent-encoding included)',
    (url) => {
      expect(refuseWebhookUrl(url, STRICT)).toMatch(/^must reach a public address: .* is loopback/);
    },
  );

  it('lets WEBHOOK_ALLOW_PRIVATE_URLS take http:// and loopback, private and local targets', () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'https://10.0.0.1/',
      'https://[::1]/',
      'http://localhost/',
      'https://169.254.169.254/',
    ])
      expect(refuseWebhookUrl(url, PRIVATE_ALLOWED), url).toBeUndefined();
  });

  it('still refuses other schemes, credentials and non-URLs when private targets are allowed', () => {
    expect(refuseWebhookUrl('ftp://127.0.0.1/', PRIVATE_ALLOWED)).toBe('must start with https:// or http://');
    expect(refuseWebhookUrl('http://user:pass@127.0.0.1/', PRIVATE_ALLOWED)).toBe(
      'must not contain a user name or password',
    );
    expect(refuseWebhookUrl('not-a-url', PRIVATE_ALLOWED)).toBe(NOT_ABSOLUTE);
  });
});
