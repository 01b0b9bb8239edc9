import { describe, expect, it } from 'vitest';
import type { Clock } from '../../core/clock.js';
import { type KeyKindId, mapKeyKinds } from '../../core/key-kinds.js';
import { BRAND_KEY_LIFETIME_MS } from '../../core/key-lifecycle.js';
import { hashKey, KEY_FORMATS } from '../../core/secret-keys.js';
import { ChangeHub } from '../../store/change-feed.js';
import type { KeyRecord } from '../../store/store.js';
import { Credentials, type Principal } from './credentials.js';
import type { UserTokenVerifier } from './tokens.js';

const NOW = Date.UTC(2026, 10, 20, 10, 0, 0);
const clock: Clock = { now: () => NOW };

/** A store holding one key of each kind in workspace ws_a (and ws_b, which no key belongs to). */
function fixture() {
  const keys = mapKeyKinds((kind) => KEY_FORMATS[kind.id].generate());
  const lookups: KeyKindId[] = [];
  const changes = new ChangeHub(() => () => undefined);
  const record = (kind: KeyKindId): KeyRecord => ({
    id: `${kind}_1`,
    workspaceId: 'ws_a',
    name: kind,
    keyHash: hashKey(keys[kind]),
    ...KEY_FORMATS[kind].hint(keys[kind]),
    createdBy: null,
    createdAt: new Date(NOW).toISOString(),
    expiresAt: new Date(NOW + BRAND_KEY_LIFETIME_MS).toISOString(),
    revokedAt: null,
    lastUsedAt: null,
  });
  const store = {
    changes,
    keys: {
      findByHashes: (kind: KeyKindId, hashes: readonly string[]) => {
        lookups.push(kind);
        return Promise.resolve(hashes.includes(hashKey(keys[kind])) ? [record(kind)] : []);
      },
      revokedHashes: () => Promise.resolve([]),
    },
    settings: { getOrCreate: (_name: string, value: string) => Promise.resolve(value) },
    workspaces: {
      get: (id: string) => Promise.resolve(['ws_a', 'ws_b'].includes(id) ? { id } : undefined),
      getMember: () => Promise.resolve(undefined),
    },
  } as unknown as ConstructorParameters<typeof Credentials>[0];
  const tokens: UserTokenVerifier = {
    verify: () => Promise.reject(new Error('no user tokens here')),
  };
  const credentials = new Credentials(store, clock, tokens, { signers: {}, log: console });
  const bearer = (kind: KeyKindId) => ({ authorization: `Bearer ${keys[kind]}` });
  return { credentials, changes, lookups, bearer };
}

describe('Credentials.resolve', () => {
  it('looks a brand read key up once, then answers from memory without a promise', async () => {
    const { credentials, lookups, bearer } = fixture();
    const first = credentials.resolve(bearer('brand'), 'read');
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ kind: 'key', keyKind: 'brand', workspaceId: 'ws_a' });
    const second = credentials.resolve(bearer('brand'), 'read');
    expect(second).not.toBeInstanceOf(Promise);
    expect(lookups).toEqual(['brand']);
  });

  it('forgets a cached key when its workspace changes, and serves none from memory while the feed is down', async () => {
    const { credentials, changes, lookups, bearer } = fixture();
    await credentials.resolve(bearer('brand'), 'read');
    changes.emit({ workspaceId: 'ws_a' });
    await credentials.resolve(bearer('brand'), 'read');
    changes.live = false;
    await credentials.resolve(bearer('brand'), 'read');
    expect(lookups).toEqual(['brand', 'brand', 'brand']);
  });

  it('looks a workspace API key up on every request: its kind is not cached', async () => {
    const { credentials, lookups, bearer } = fixture();
    await credentials.resolve(bearer('api'), 'management');
    const again = credentials.resolve(bearer('api'), 'management');
    expect(again).toBeInstanceOf(Promise);
    await again;
    expect(lookups).toEqual(['api', 'api']);
  });

  it('refuses a key on a surface that does not take its kind before looking it up', () => {
    const { credentials, lookups, bearer } = fixture();
    expect(() => credentials.resolve(bearer('api'), 'read')).toThrow(
      expect.objectContaining({ code: 'malformed_key' }),
    );
    expect(() => credentials.resolve(bearer('brand'), 'management')).toThrow(
      expect.objectContaining({ code: 'brand_key_not_allowed' }),
    );
    expect(lookups).toEqual([]);
  });

  it('takes only transactional email keys on /email/v1, and refuses them everywhere else', async () => {
    const { credentials, lookups, bearer } = fixture();
    expect(await credentials.resolve(bearer('email'), 'email')).toMatchObject({ keyKind: 'email' });
    for (const kind of ['brand', 'api'] as const) {
      expect(() => credentials.resolve(bearer(kind), 'email')).toThrow(
        expect.objectContaining({ code: 'email_key_invalid' }),
      );
    }
    expect(() => credentials.resolve({ authorization: 'Bearer a.b.c' }, 'email')).toThrow(
      /Access tokens cannot send email/,
    );
    expect(() => credentials.resolve({ authorization: undefined }, 'email')).toThrow(
      expect.objectContaining({ code: 'email_key_missing' }),
    );
    expect(() => credentials.resolve(bearer('email'), 'management')).toThrow(
      expect.objectContaining({ code: 'email_key_not_allowed' }),
    );
    expect(() => credentials.resolve(bearer('email'), 'read')).toThrow(
      expect.objectContaining({ code: 'malformed_key' }),
    );
    expect(lookups).toEqual(['email']);
  });

  it('takes a stray word for a malformed brand read key on the read operation', () => {
    const { credentials } = fixture();
    expect(() => credentials.resolve({ authorization: 'Bearer hunter2' }, 'read')).toThrow(
      expect.objectContaining({ code: 'malformed_key' }),
    );
  });
});

describe('Credentials.authorize', () => {
  it('lets a key into its own workspace at once, within its permissions only', async () => {
    const { credentials, bearer } = fixture();
    const brandKey: Principal = await credentials.resolve(bearer('brand'), 'read');
    expect(credentials.authorize(brandKey, 'ws_a', 'brand.read')).toBeNull();
    const apiKey: Principal = await credentials.resolve(bearer('api'), 'management');
    expect(() => credentials.authorize(apiKey, 'ws_a', 'keys.read')).toThrow(
      expect.objectContaining({ code: 'api_key_not_allowed' }),
    );
  });

  it('answers 403 for another workspace that exists and 404 for one that does not', async () => {
    const { credentials, bearer } = fixture();
    const key = await credentials.resolve(bearer('brand'), 'read');
    await expect(credentials.authorize(key, 'ws_b', 'brand.read')).rejects.toMatchObject({
      code: 'workspace_forbidden',
      detail: 'This key was not created in workspace ws_b.',
    });
    await expect(credentials.authorize(key, 'ws_none', 'brand.read')).rejects.toMatchObject({
      code: 'workspace_not_found',
    });
  });
});
