import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import { WEBHOOK_SECRET_PREFIX } from '../../core/secret-keys.js';
import type { Repositories } from '../../store/store.js';

/** Standard Webhooks' secrets are 24 to 64 random bytes; Svix and Stripe use 24 to 32. */
const SECRET_BYTES = 32;
const SEALED_VERSION = 'v1';

/** A new signing secret: `whsec_` and base64, as the `standardwebhooks` package reads it. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * What must be read again cannot be hashed like keys, so it is stored sealed with AES-256-GCM: webhook signing
 * secrets (shown again by GET …/secret, and used to sign) and email bodies (sent by a worker later, and they
 * may carry one-time links). The key is `BRAND_CONTEXT_ENCRYPTION_KEY` (32 bytes, base64)
 * when set, which keeps a copy of the database alone from revealing them; otherwise one generated once and
 * kept in the database's settings (docs/configuration.md "Configuration").
 *
 * A box exists only with its key in hand (`SecretBox.load`), so sealing and opening never touch the store:
 * they are safe inside any transaction, even on SQLite, whose one connection is the transaction's until it
 * ends (a first read of the key from inside one would wait for it forever).
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The box of `configuredKey`, or else of the key kept in the database, made there on first use. */
  static async load(store: Pick<Repositories, 'settings'>, configuredKey?: Buffer): Promise<SecretBox> {
    if (configuredKey) return new SecretBox(configuredKey);
    const kept = await store.settings.getOrCreate('webhook_secrets_key', randomBytes(32).toString('base64'));
    return new SecretBox(Buffer.from(kept, 'base64'));
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [SEALED_VERSION, iv, sealed, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The secret; 500 `secret_unreadable` when it was sealed with another key than this node's. */
  open(sealed: string): string {
    const [version, iv, data, tag] = sealed.split('.');
    try {
      if (version !== SEALED_VERSION || iv === undefined || data === undefined || tag === undefined) {
        throw new Error('unknown form');
      }
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new AppError('secret_unreadable');
    }
  }
}
