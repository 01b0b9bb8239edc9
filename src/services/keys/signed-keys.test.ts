import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { emptyBrand } from '../../core/brand-context.js';
import type { Clock } from '../../core/clock.js';
import { BRAND_KEY_LIFETIME_MS } from '../../core/key-lifecycle.js';
import { KeySigner, keySigners } from '../../core/key-signature.js';
import { BRAND_KEY, hashKey } from '../../core/secret-keys.js';
import { type ChangeFeed, ChangeHub } from '../../store/change-feed.js';
import { openStore } from '../../store/open-store.js';
import type { Store } from '../../store/store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { OPERATOR } from '../audit/audit.js';
import { createBrandKey, listBrandKeys, UNRECORDED_KEY_NAME } from './keys.js';
import { SignedKeys, type SignedKeysLog } from './signed-keys.js';

const NOW = Date.UTC(2026, 10, 20, 10, 0, 0);
const clock: Clock = { now: () => NOW };
const SECRET = Buffer.alloc(32, 3);
const signers = keySigners(SECRET);
let sequence = 0;

/** `store` with the change feed as a test drives it. */
function withFeed(store: Store, changes: ChangeFeed): Store {
  return Object.create(store, { changes: { value: changes } }) as Store;
}

/** A log that keeps its warnings and errors. */
function keptLog(): SignedKeysLog & { warnings: string[]; errors: string[] } {
  const warnings: string[] = [];
  const errors: string[] = [];
  return {
    warnings,
    errors,
    warn: (details, message) => warnings.push(`${message} ${JSON.stringify(details)}`),
    error: (details, message) => errors.push(`${message} ${JSON.stringify(details)}`),
  };
}

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
    signed = new SignedKeys(withFeed(store, feed), clock, signers, keptLog());
    expect(signed.ready('brand')).toBe(true);
  });

  afterAll(async () => {
    await signed.close();
    await store.close();
    await database.drop();
  });

  async function newKey() {
    const workspaceId = `ws_signed${String(++sequence).padStart(16, '0')}`;
    await store.workspaces.create(
      { id: workspaceId, name: 'Signed Co', createdAt: new Date(NOW).toISOString() },
      emptyBrand(),
    );
    const created = await createBrandKey({ store, clock, keySigners: signers }, OPERATOR, {
      workspaceId,
      name: 'signed',
    });
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
    const sibling = await createBrandKey({ store, clock, keySigners: signers }, OPERATOR, {
      workspaceId,
      name: 'sibling',
    });
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
    const sibling = await createBrandKey({ store, clock, keySigners: signers }, OPERATOR, {
      workspaceId,
      name: 'sibling',
    });
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

  it('verifies nothing by signature while the revocations cannot be read, and recovers by itself once they can', async () => {
    const { verify, workspaceId, created } = await newKey();
    let failing = true;
    const keys: Store['keys'] = Object.create(store.keys) as Store['keys'];
    keys.revokedHashes = (...args) =>
      failing ? Promise.reject(new Error('database unavailable')) : store.keys.revokedHashes(...args);
    const alone = new SignedKeys(
      Object.create(withFeed(store, feed), { keys: { value: keys } }) as Store,
      clock,
      signers,
      keptLog(),
    );
    const verifyAlone = () => alone.verify('brand', created.key, hashKey(created.key), workspaceId, NOW);
    try {
      expect(await verifyAlone()).toBeUndefined();
      expect(await verifyAlone()).toBeUndefined();
      failing = false;
      expect((await verifyAlone())?.id).toBe(created.id);
      expect((await verify())?.id).toBe(created.id);
    } finally {
      await alone.close();
    }
  });

  it('verifies nothing by signature without a configured secret: every key is the store’s to judge', async () => {
    const { workspaceId, created } = await newKey();
    const unsigned = new SignedKeys(withFeed(store, feed), clock, keySigners(undefined), keptLog());
    try {
      expect(unsigned.ready('brand')).toBe(false);
      expect(
        await unsigned.verify('brand', created.key, hashKey(created.key), workspaceId, NOW),
      ).toBeUndefined();
    } finally {
      await unsigned.close();
    }
  });

  it('leaves a key that says it expires more than its kind’s lifetime (and 5 minutes) from now to the store', async () => {
    const { workspaceId } = await newKey();
    const signer = signers.brand;
    if (!signer) throw new Error('brand read keys are not signed');
    const latest = NOW + BRAND_KEY_LIFETIME_MS + 5 * 60 * 1000;
    for (const [expiresAt, verified] of [
      [latest, true],
      [latest + 1, false],
      [Date.UTC(8888, 0, 1), false],
    ] as const) {
      const { key } = signer.issue(workspaceId, expiresAt);
      const facts = await signed.verify('brand', key, hashKey(key), workspaceId, NOW);
      expect(facts !== undefined).toBe(verified);
    }
  });

  it('records a key verified by its signature that has no row as revoked, refuses it, counts it and warns once', async () => {
    const { workspaceId } = await newKey();
    const log = keptLog();
    const refused: string[] = [];
    const checking = new SignedKeys(withFeed(store, feed), clock, signers, log, (hash) => refused.push(hash));
    const elsewhere = new SignedKeys(withFeed(store, feed), clock, signers, log);
    try {
      const forged = signers.brand?.issue(workspaceId, NOW + 1000) ?? { key: '', id: '' };
      const hash = hashKey(forged.key);
      for (const node of [checking, elsewhere])
        expect(await node.verify('brand', forged.key, hash, workspaceId, NOW)).toBeDefined();
      await vi.waitFor(() => {
        expect(checking.stats.unrecorded + elsewhere.stats.unrecorded).toBe(1);
      });
      expect(checking.verify('brand', forged.key, hash, workspaceId, NOW)).toBeUndefined();
      expect(refused).toEqual([hash]);
      const listed = (await listBrandKeys({ store, clock }, workspaceId)).find((key) => key.id === forged.id);
      expect(listed).toMatchObject({ name: UNRECORDED_KEY_NAME, status: 'revoked' });
      expect(log.warnings).toHaveLength(1);
      expect(log.warnings[0]).toContain(forged.id);
      expect(log.warnings[0]).not.toContain(forged.key);
      // Once the change reaches the other node, it refuses the key too.
      feed.emit({ workspaceId });
      expect(await elsewhere.verify('brand', forged.key, hash, workspaceId, NOW)).toBeUndefined();
    } finally {
      await Promise.all([checking.close(), elsewhere.close()]);
    }
  });

  it('confirms keys that have rows without recording anything, in one query, and does not ask about them again', async () => {
    const { created, workspaceId } = await newKey();
    const sibling = await createBrandKey({ store, clock, keySigners: signers }, OPERATOR, {
      workspaceId,
      name: 'sibling',
    });
    const asked: number[] = [];
    const keys: Store['keys'] = Object.create(store.keys) as Store['keys'];
    // Counted once answered: a key is confirmed when the answer comes, not when the question is asked.
    keys.findByHashes = async (kind, hashes) => {
      const existing = await store.keys.findByHashes(kind, hashes);
      asked.push(hashes.length);
      return existing;
    };
    const log = keptLog();
    const checking = new SignedKeys(
      Object.create(withFeed(store, feed), { keys: { value: keys } }) as Store,
      clock,
      signers,
      log,
    );
    const verifyBoth = async () => {
      for (const { key } of [created, sibling])
        expect(await checking.verify('brand', key, hashKey(key), workspaceId, NOW)).toBeDefined();
    };
    try {
      await verifyBoth();
      await vi.waitFor(() => {
        expect(asked).toEqual([2]);
      });
      await verifyBoth();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(asked).toEqual([2]);
      expect(checking.stats.unrecorded).toBe(0);
      expect(log.warnings).toEqual([]);
      expect(log.errors).toEqual([]);
      expect(await listBrandKeys({ store, clock }, workspaceId)).toHaveLength(2);
    } finally {
      await checking.close();
    }
  });
});
