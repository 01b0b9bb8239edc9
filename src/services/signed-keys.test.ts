import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { emptyBrand } from '../core/brand-context.js';
import type { Clock } from '../core/clock.js';
import { BRAND_KEY_LIFETIME_MS } from '../core/key-lifecycle.js';
import { KeySigner } from '../core/key-signature.js';
import { BRAND_KEY, hashKey } from '../core/secret-keys.js';
import { ChangeHub } from '../store/change-feed.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { describeEachBackend, type TestDatabase } from '../../test/support/databases.js';
import { OPERATOR } from './audit.js';
import { createBrandKey } from './keys.js';
import { loadKeySigner, SignedKeys } from './signed-keys.js';

const NOW = Date.UTC(2026, 10, 20, 10, 0, 0);
const clock: Clock = { now: () => NOW };
let sequence = 0;

describeEachBackend('Verifying keys by their signature', (backend) => {
  let database: TestDatabase;
  let store: Store;
  /** The change feed as these tests drive it: what it reports, and whether it is live. */
  let feed: ChangeHub;
  let signed: SignedKeys;

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
    feed = new ChangeHub(() => () => undefined);
    signed = new SignedKeys({ keys: store.keys, settings: store.settings, changes: feed }, clock);
    await vi.waitFor(() => {
      expect(signed.ready('brand')).toBe(true);
    });
  });

  afterAll(async () => {
    signed.close();
    await store.close();
    await database.drop();
  });

  async function newKey() {
    const workspaceId = `ws_signed${String(++sequence).padStart(16, '0')}`;
    await store.workspaces.create(
      { id: workspaceId, name: 'Signed Co', createdAt: new Date(NOW).toISOString() },
      emptyBrand(),
    );
    const created = await createBrandKey({ store, clock }, OPERATOR, { workspaceId, name: 'signed' });
    const verify = (workspace = workspaceId, now = NOW) =>
      signed.verify('brand', created.key, hashKey(created.key), workspace, now);
    return { workspaceId, created, verify };
  }

  it('verifies a new key for its workspace: its id and expiry, with no lookup', async () => {
    const { created, verify } = await newKey();
    const before = signed.stats.verified;
    expect(await verify()).toEqual({ id: created.id, expiresAt: Date.parse(created.expires_at ?? '') });
    expect(created.expires_at).toBe(new Date(NOW + BRAND_KEY_LIFETIME_MS).toISOString());
    expect(signed.stats.verified).toBe(before + 1);
  });

  it('asks for a workspace’s revocations once, then verifies its keys without waiting', async () => {
    const { workspaceId, created, verify } = await newKey();
    const sibling = await createBrandKey({ store, clock }, OPERATOR, { workspaceId, name: 'sibling' });
    expect(verify()).toBeInstanceOf(Promise);
    expect((await verify())?.id).toBe(created.id);
    expect(signed.verify('brand', sibling.key, hashKey(sibling.key), workspaceId, NOW)).toEqual({
      id: sibling.id,
      expiresAt: Date.parse(sibling.expires_at ?? ''),
    });
  });

  it('leaves a key presented for another workspace to the store', async () => {
    const { verify } = await newKey();
    const other = await newKey();
    expect(await verify(other.workspaceId)).toBeUndefined();
  });

  it('leaves an expired key to the store, which knows whether it was revoked too', async () => {
    const { verify } = await newKey();
    expect(await verify(undefined, NOW + BRAND_KEY_LIFETIME_MS)).toBeUndefined();
    expect(await verify(undefined, NOW + BRAND_KEY_LIFETIME_MS - 1)).toBeDefined();
  });

  it('leaves keys signed with another secret, and unsigned keys, to the store', async () => {
    const { workspaceId } = await newKey();
    const foreign = new KeySigner(BRAND_KEY, 'bk', Buffer.alloc(32, 7)).issue(workspaceId, NOW + 1000).key;
    expect(await signed.verify('brand', foreign, hashKey(foreign), workspaceId, NOW)).toBeUndefined();
    const unsigned = BRAND_KEY.generate();
    expect(await signed.verify('brand', unsigned, hashKey(unsigned), workspaceId, NOW)).toBeUndefined();
  });

  it('leaves a revoked key to the store from the change that reports it on', async () => {
    const { workspaceId, created, verify } = await newKey();
    const sibling = await createBrandKey({ store, clock }, OPERATOR, { workspaceId, name: 'sibling' });
    const verifySibling = () => signed.verify('brand', sibling.key, hashKey(sibling.key), workspaceId, NOW);
    const untouched = await newKey();
    expect(await verify()).toBeDefined();
    expect(await untouched.verify()).toBeDefined();
    await store.keys.revoke('brand', workspaceId, created.id, new Date(NOW).toISOString());
    // Until the feed reports it, a revocation by another node is not known here: the feed's delay.
    expect(await verify()).toBeDefined();
    feed.emit({ workspaceId });
    // The workspace's revocations are asked again; other workspaces' are still held.
    expect(verifySibling()).toBeInstanceOf(Promise);
    expect(untouched.verify()).not.toBeInstanceOf(Promise);
    expect(await verifySibling()).toBeDefined();
    expect(await verify()).toBeUndefined();
  });

  it('learns every revocation again when the feed says anything may have changed', async () => {
    const { workspaceId, created, verify } = await newKey();
    const untouched = await newKey();
    expect(await verify()).toBeDefined();
    expect(await untouched.verify()).toBeDefined();
    await store.keys.revoke('brand', workspaceId, created.id, new Date(NOW).toISOString());
    feed.emit({ workspaceId: null });
    expect(untouched.verify()).toBeInstanceOf(Promise);
    expect(await verify()).toBeUndefined();
    expect(await untouched.verify()).toBeDefined();
  });

  it('leaves every key to the store while the feed is not live', async () => {
    const { verify } = await newKey();
    expect(await verify()).toBeDefined();
    feed.live = false;
    try {
      expect(signed.ready('brand')).toBe(false);
      expect(verify()).toBeUndefined();
    } finally {
      feed.live = true;
    }
    expect(await verify()).toBeDefined();
  });

  it('verifies nothing by signature while the secret or the revocations cannot be read, and recovers by itself once they can', async () => {
    const { verify, workspaceId, created } = await newKey();
    let failing = true;
    const keys: Store['keys'] = Object.create(store.keys) as Store['keys'];
    keys.revokedHashes = (...args) =>
      failing ? Promise.reject(new Error('database unavailable')) : store.keys.revokedHashes(...args);
    const settings: Store['settings'] = {
      getOrCreate: (...args) =>
        failing ? Promise.reject(new Error('database unavailable')) : store.settings.getOrCreate(...args),
    };
    const alone = new SignedKeys({ keys, settings, changes: feed }, clock);
    const verifyAlone = () => alone.verify('brand', created.key, hashKey(created.key), workspaceId, NOW);
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(alone.ready('brand')).toBe(false);
      expect(await verifyAlone()).toBeUndefined();
      failing = false;
      await vi.waitFor(() => {
        expect(alone.ready('brand')).toBe(true);
      });
      failing = true;
      expect(await verifyAlone()).toBeUndefined();
      failing = false;
      expect((await verifyAlone())?.id).toBe(created.id);
      expect((await verify())?.id).toBe(created.id);
    } finally {
      alone.close();
    }
  });

  it('signs with the secret kept in the database, so every node verifies what another made', async () => {
    const { workspaceId, created } = await newKey();
    const elsewhere = await loadKeySigner(store, 'brand');
    expect(elsewhere?.verify(created.key, workspaceId)?.id).toBe(created.id);
    expect(await loadKeySigner(store, 'api')).toBeUndefined();
  });
});
