import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { WEBHOOK_SECRET_PREFIX } from '../core/secret-keys.js';
import type { Repositories } from '../store/store.js';

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
 * kept in the database's settings (README "Configuration").
 */
export class SecretBox {
  private key: Promise<Buffer> | undefined;

  constructor(
    private readonly store: Pick<Repositories, 'settings'>,
    private readonly configuredKey?: Buffer,
  ) {}

  private encryptionKey(): Promise<Buffer> {
    this.key ??= this.configuredKey
      ? Promise.resolve(this.configuredKey)
      : this.store.settings.getOrCreate('webhook_secrets_key', randomBytes(32).toString('base64')).then(
          (value) => Buffer.from(value, 'base64'),
          (error: unknown) => {
            // Not kept: a database that failed once (an outage) is asked again next time.
            this.key = undefined;
            throw error;
          },
        );
    return this.key;
  }

  /**
   * Reads the key now, if it is kept in the database. Call it before a transaction that seals (queueEmail):
   * on SQLite the store's one connection is the transaction's until it ends, so a first read of the key
   * from inside it would wait for the transaction forever.
   */
  async load(): Promise<void> {
    await this.encryptionKey();
  }

  async seal(secret: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.encryptionKey(), iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [SEALED_VERSION, iv, sealed, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The secret; 500 `secret_unreadable` when it was sealed with another key than this node's. */
  async open(sealed: string): Promise<string> {
    const [version, iv, data, tag] = sealed.split('.');
    const key = await this.encryptionKey();
    try {
      if (version !== SEALED_VERSION || iv === undefined || data === undefined || tag === undefined) {
        throw new Error('unknown form');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new AppError('secret_unreadable');
    }
  }
}
