import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { Repositories } from '../store/store.js';
import { generateWebhookSecret, SecretBox } from './secret-box.js';

/** Settings are only read when no key is configured; these tests configure one. */
const noSettings = {} as Pick<Repositories, 'settings'>;

describe('webhook secrets', () => {
  it('generates whsec_ secrets that the standardwebhooks package accepts, each different', () => {
    const [first, second] = [generateWebhookSecret(), generateWebhookSecret()];
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(first).not.toBe(second);
    expect(() => new Webhook(first)).not.toThrow();
  });

  it('seals a secret so that the sealed text does not contain it, and opens it again', async () => {
    const secrets = new SecretBox(noSettings, randomBytes(32));
    const secret = generateWebhookSecret();
    const sealed = await secrets.seal(secret);
    expect(sealed).not.toContain(secret.slice('whsec_'.length, 20));
    expect(await secrets.seal(secret)).not.toBe(sealed);
    expect(await secrets.open(sealed)).toBe(secret);
  });

  it('refuses with secret_unreadable a secret sealed under another key', async () => {
    const sealed = await new SecretBox(noSettings, randomBytes(32)).seal(generateWebhookSecret());
    await expect(new SecretBox(noSettings, randomBytes(32)).open(sealed)).rejects.toMatchObject({
      code: 'secret_unreadable',
    });
    await expect(new SecretBox(noSettings, randomBytes(32)).open('not sealed')).rejects.toMatchObject({
      code: 'secret_unreadable',
    });
  });

  it('asks the database for its key again after a failed read, rather than failing from then on', async () => {
    const stored = new Map<string, string>();
    let unavailable = true;
    const settings: Pick<Repositories, 'settings'> = {
      settings: {
        getOrCreate(name, value) {
          if (unavailable) return Promise.reject(new Error('the database is unavailable'));
          if (!stored.has(name)) stored.set(name, value);
          return Promise.resolve(stored.get(name) ?? value);
        },
      },
    };
    const secrets = new SecretBox(settings);
    await expect(secrets.seal(generateWebhookSecret())).rejects.toThrow('the database is unavailable');
    unavailable = false;
    const secret = generateWebhookSecret();
    expect(await secrets.open(await secrets.seal(secret))).toBe(secret);
  });
});
