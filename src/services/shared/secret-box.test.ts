import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { sqliteBackend, type TestDatabase } from '#test/support/databases.js';
import { DEFAULT_EMAIL_FROM } from '../../config.js';
import { openStore } from '../../store/open-store.js';
import type { Repositories, Store } from '../../store/store.js';
import { openEmailBody, queueEmail } from '../email/queue.js';
import { generateWebhookSecret, SecretBox } from './secret-box.js';

/** Settings that fail the test if asked: a configured key must never be looked up. */
const noSettings: Pick<Repositories, 'settings'> = {
  settings: {
    getOrCreate: () => Promise.reject(new Error('the settings were read although a key is configured')),
  },
};

describe('webhook secrets', () => {
  it('generates whsec_ secrets that the standardwebhooks package accepts, each different', () => {
    const [first, second] = [generateWebhookSecret(), generateWebhookSecret()];
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(first).not.toBe(second);
    expect(() => new Webhook(first)).not.toThrow();
  });

  it('seals a secret so that the sealed text does not contain it, and opens it again', async () => {
    const secrets = await SecretBox.load(noSettings, randomBytes(32));
    const secret = generateWebhookSecret();
    const sealed = secrets.seal(secret);
    expect(sealed).not.toContain(secret.slice('whsec_'.length, 20));
    expect(secrets.seal(secret)).not.toBe(sealed);
    expect(secrets.open(sealed)).toBe(secret);
  });

  it('refuses with secret_unreadable a secret sealed under another key', async () => {
    const sealed = (await SecretBox.load(noSettings, randomBytes(32))).seal(generateWebhookSecret());
    const elsewhere = await SecretBox.load(noSettings, randomBytes(32));
    expect(() => elsewhere.open(sealed)).toThrow(expect.objectContaining({ code: 'secret_unreadable' }));
    expect(() => elsewhere.open('not sealed')).toThrow(
      expect.objectContaining({ code: 'secret_unreadable' }),
    );
  });

  it('is made only by loading its key: no constructor hands out a box whose key is still to be read', () => {
    // Checked by the type checker (npx tsc --noEmit): the constructor is private.
    expectTypeOf<typeof SecretBox>().not.toExtend<new (...args: never[]) => SecretBox>();
  });

  it('fails to load while the database is unavailable, and loads its key once the database answers', async () => {
    let unavailable = true;
    const settings: Pick<Repositories, 'settings'> = {
      settings: {
        getOrCreate: (_name, value) =>
          unavailable ? Promise.reject(new Error('the database is unavailable')) : Promise.resolve(value),
      },
    };
    await expect(SecretBox.load(settings)).rejects.toThrow('the database is unavailable');
    unavailable = false;
    const secrets = await SecretBox.load(settings);
    const secret = generateWebhookSecret();
    expect(secrets.open(secrets.seal(secret))).toBe(secret);
  });
});

describe('the key kept in a SQLite database', () => {
  let database: TestDatabase;
  let store: Store;

  beforeEach(async () => {
    database = await sqliteBackend.create();
    store = await openStore(database.config);
  });

  afterEach(async () => {
    await store.close();
    await database.drop();
  });

  // SQLite's one connection is the transaction's until it ends: a box that read its key there would wait forever.
  it('seals inside a transaction of a fresh database, and a box loaded later opens it with the same key', async () => {
    const secrets = await SecretBox.load(store);
    const { message } = await store.transaction((tx) =>
      queueEmail(tx, secrets, new Date().toISOString(), {
        workspaceId: null,
        source: 'account',
        from: DEFAULT_EMAIL_FROM,
        to: ['ada@example.com'],
        subject: 'Reset your password',
        text: 'Choose a new password: https://brand.test/reset#one-time-token',
      }),
    );
    const stored = await store.email.get(null, message.id);
    if (!stored) throw new Error('the queued message is gone');
    expect(openEmailBody(await SecretBox.load(store), stored)).toEqual({
      html: null,
      text: 'Choose a new password: https://brand.test/reset#one-time-token',
    });
  });
});
