import { hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeBase62, randomBase62 } from './base62.js';
import { KEY_KIND_LIST, type KeyKindId, mapKeyKinds } from './key-kinds.js';

/**
 * Secret keys have GitHub's token shape: a fixed prefix, 30 base62 characters (random, or for brand read
 * keys signed, src/core/key-signature.ts) and a 6-character base62 CRC32 of everything before it. Secret
 * scanners can recognise the prefix, and a mistyped key is rejected from its checksum alone, without touching
 * the database.
 */
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;

export type KeyFormatProblem = 'format' | 'checksum';

export interface KeyFormat {
  readonly prefix: string;
  readonly length: number;
  generate(): string;
  /** `body` (the prefix and 30 characters) with its checksum: a key of this format. */
  withChecksum(body: string): string;
  /** Why `token` cannot be a key of this kind, or undefined when it is well formed. */
  formatProblem(token: string): KeyFormatProblem | undefined;
  /** What listings show instead of the secret: the prefix with the first 4 random characters, and the last 4. */
  hint(key: string): { prefix: string; last4: string };
}

/** How many random characters listings show after a key's prefix (and how many of its end). */
const HINT_LENGTH = 4;

function checksum(body: string): string {
  return encodeBase62(crc32(body), CHECKSUM_LENGTH);
}

function withChecksum(body: string): string {
  return body + checksum(body);
}

function defineKeyFormat(prefix: string): KeyFormat {
  const shape = new RegExp(`^${prefix}[0-9A-Za-z]{${String(RANDOM_LENGTH + CHECKSUM_LENGTH)}}$`);
  return {
    prefix,
    length: prefix.length + RANDOM_LENGTH + CHECKSUM_LENGTH,
    generate: () => withChecksum(prefix + randomBase62(RANDOM_LENGTH)),
    withChecksum,
    formatProblem(token) {
      if (!shape.test(token)) return 'format';
      return checksum(token.slice(0, -CHECKSUM_LENGTH)) === token.slice(-CHECKSUM_LENGTH)
        ? undefined
        : 'checksum';
    },
    hint(key) {
      return { prefix: key.slice(0, prefix.length + HINT_LENGTH), last4: key.slice(-HINT_LENGTH) };
    },
  };
}

/** The format of every kind of key (src/core/key-kinds.ts), from its prefix. */
export const KEY_FORMATS: Record<KeyKindId, KeyFormat> = mapKeyKinds((kind) => defineKeyFormat(kind.prefix));
/** Brand read keys: read one workspace's brand context, nothing else (docs/keys.md "Brand read keys"). */
export const BRAND_KEY = KEY_FORMATS.brand;
/** Workspace API keys: the campaign API of one workspace, nothing else (docs/campaigns.md "Workspace API keys"). */
export const WORKSPACE_API_KEY = KEY_FORMATS.api;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Whether a bearer token has a JWT's three base64url parts (a user token, not a key). */
export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

/** Webhook signing secrets (`whsec_…`, Standard Webhooks' shape) are secrets too. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const WEBHOOK_SECRET_NAME = WEBHOOK_SECRET_PREFIX.slice(0, -1);

/**
 * The one-time tokens of account links (docs/account-email.md "Account email"): `bci_` (invite) or `bcr_` (password reset)
 * and 32 random bytes in base64url.
 */
export const ACCOUNT_LINK_PREFIXES = { invite: 'bci_', password_reset: 'bcr_' } as const;
/**
 * The secrets of OAuth for MCP (docs/oauth.md "Tokens"): access tokens `oat_`, refresh tokens `ort_` and
 * authorization codes `oac_`, each with 32 random bytes in base64url, redacted as account links are.
 */
export const OAUTH_SECRET_PREFIXES = { access: 'oat_', refresh: 'ort_', code: 'oac_' } as const;
const ACCOUNT_LINK_NAMES = [...Object.values(ACCOUNT_LINK_PREFIXES), ...Object.values(OAUTH_SECRET_PREFIXES)]
  .map((prefix) => prefix.slice(0, -1))
  .join('|');

/** Every kind of key is redacted: its prefix without the `_`. */
const SECRET_KEY_NAMES = KEY_KIND_LIST.map((kind) => kind.prefix.slice(0, -1)).join('|');
/**
 * Anything shaped like a secret: a key prefix (its `_` possibly percent-encoded) followed by any base62 run, even
 * one cut short, wherever it stands (after `%20`, a letter, a digit or `_` too); a webhook signing secret
 * (`whsec_` and base64); an account link's token (`bci_` or `bcr_`) or an OAuth secret (`oat_`, `ort_`, `oac_`),
 * each with base64url; and a JWT (`eyJ…` header).
 */
const SECRET_PREFIX = `(?:${SECRET_KEY_NAMES}|${WEBHOOK_SECRET_NAME}|${ACCOUNT_LINK_NAMES})(?:_|%5[Ff])`;
/**
 * A run stops where another secret's prefix starts: otherwise it would swallow that prefix (`brk_…wsk`, or
 * `whsec_…/whsec` since base64 has `/`) and leave the next secret's random part in the clear. A webhook
 * secret's run includes base64's `+`, `/` and `=` percent-encoded, as a URL carries them.
 */
const runOf = (characters: string) => `(?:(?!${SECRET_PREFIX})(?:${characters}))+`;
/**
 * A key as listings and error details show it, its prefix then 4 characters then `…` (KeyFormat.hint): no
 * secret, and what lets its owner tell which key it is, so it is left as it is.
 */
const LISTED_KEY = `[0-9A-Za-z]{${String(HINT_LENGTH)}}\u2026`;
const ANY_SECRET = new RegExp(
  `(${SECRET_KEY_NAMES})(?:_|%5[Ff])(?!${LISTED_KEY})${runOf('[0-9A-Za-z]')}|(${WEBHOOK_SECRET_NAME})(?:_|%5[Ff])${runOf('[0-9A-Za-z+/=]|%2[BbFf]|%3[Dd]')}|(${ACCOUNT_LINK_NAMES})(?:_|%5[Ff])${runOf('[0-9A-Za-z_-]')}|eyJ[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]*(?:\\.[A-Za-z0-9_-]*)?`,
  'g',
);

/** Masks anything shaped like a key or a user token in `text`: for logs and error details that echo input. */
export function redactKeys(text: string): string {
  return text.replace(
    ANY_SECRET,
    (
      _match,
      keyName: string | undefined,
      webhookSecretName: string | undefined,
      linkName: string | undefined,
    ) => {
      const name = keyName ?? webhookSecretName ?? linkName;
      return name === undefined ? '[REDACTED_TOKEN]' : `${name}_[REDACTED]`;
    },
  );
}

/**
 * The only form in which a key is stored. A 178-bit random secret needs no slow hash. One-shot `hash` (Node
 * 20.12+): half the CPU of a createHash object, on every read.
 */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}
