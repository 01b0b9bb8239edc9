import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { BASE62_ALPHABET, decodeBase62, encodeBase62, randomBase62 } from './base62.js';
import { KEY_KIND_LIST, KEY_KINDS, type KeyKindId } from './key-kinds.js';
import { KEY_FORMATS, type KeyFormat } from './secret-keys.js';

/**
 * A signed key keeps its format's shape (the prefix, 30 base62 characters, the checksum), and the 30
 * characters say who made it (docs/keys.md "Brand read keys"):
 *
 *   10 random characters (the nonce) | 8: its expiry, ms since 1970 | 12: its tag
 *
 * The tag is an HMAC-SHA256, under the service's signing secret, of the key's first part and the workspace it
 * reads: holding the secret, a node verifies a key of a workspace without looking it up (all it still asks is
 * whether the key was revoked, src/services/keys/signed-keys.ts). Without the secret a tag is a 71-bit guess. The
 * key's id comes from the same HMAC, so the node knows it too.
 */
const NONCE_LENGTH = 10;
const EXPIRY_LENGTH = 8;
const TAG_HALF_LENGTH = 6;
/** Each half of the tag is 6 bytes of the HMAC reduced to 6 base62 characters (35.7 bits each). */
const TAG_HALF_SPACE = 62 ** TAG_HALF_LENGTH;
const TAG_HALF_BYTES = 6;
/** The id's characters, from the HMAC's bytes after the tag's. */
const ID_LENGTH = 20;
/** The last instant an 8-character expiry can say (the year 8888). */
export const LATEST_SIGNED_EXPIRY = 62 ** EXPIRY_LENGTH - 1;

/**
 * The kinds whose keys are signed: those the read operation caches, whose creation and revocation the change
 * feed announces (src/core/key-kinds.ts `cached`).
 */
export const SIGNED_KINDS: readonly KeyKindId[] = KEY_KIND_LIST.filter((kind) => kind.cached).map(
  (kind) => kind.id,
);

/** The secret's length: 32 random bytes. */
export const SIGNING_SECRET_BYTES = 32;

/** The signer of each signed kind, all under one secret; empty when no secret is configured (keys unsigned). */
export type KeySigners = Readonly<Partial<Record<KeyKindId, KeySigner>>>;

/**
 * The signers of the signed kinds under `secret` (docs/keys.md "Brand read keys": where the secret lives); none
 * without one, so that every new key is unsigned and every presented key is looked up.
 */
export function keySigners(secret: Buffer | undefined): KeySigners {
  if (secret === undefined) return {};
  return Object.fromEntries(
    SIGNED_KINDS.map((kind) => [kind, new KeySigner(KEY_FORMATS[kind], KEY_KINDS[kind].idPrefix, secret)]),
  );
}

/** What a valid signature proves about a key of a workspace. */
export interface SignedKeyFacts {
  id: string;
  /** Ms since 1970. */
  expiresAt: number;
}

/** Signs and verifies the keys of one format; the secret is 32 random bytes. */
export class KeySigner {
  private readonly secret: KeyObject;
  private readonly nonceStart: number;
  private readonly tagStart: number;

  constructor(
    private readonly format: KeyFormat,
    private readonly idPrefix: string,
    secret: Buffer,
  ) {
    if (secret.length !== SIGNING_SECRET_BYTES)
      throw new RangeError(`a key-signing secret is ${String(SIGNING_SECRET_BYTES)} bytes`);
    this.secret = createSecretKey(secret);
    this.nonceStart = format.prefix.length;
    this.tagStart = this.nonceStart + NONCE_LENGTH + EXPIRY_LENGTH;
  }

  /** A new key of `workspaceId` that expires at `expiresAt`, and the id it is stored under. */
  issue(workspaceId: string, expiresAt: number): { key: string; id: string } {
    if (!Number.isSafeInteger(expiresAt) || expiresAt < 0 || expiresAt > LATEST_SIGNED_EXPIRY)
      throw new RangeError(`a signed key cannot expire at ${String(expiresAt)}`);
    const signed = this.format.prefix + randomBase62(NONCE_LENGTH) + encodeBase62(expiresAt, EXPIRY_LENGTH);
    const mac = this.mac(signed, workspaceId);
    return { key: this.format.withChecksum(signed + tagOf(mac)), id: this.idOf(mac) };
  }

  /**
   * What the key proves when it was signed here for `workspaceId`, else undefined (signed for another
   * workspace or with another secret, or not signed at all: a key only the store can judge). `token` is a
   * well-formed key of the format, its checksum checked.
   */
  verify(token: string, workspaceId: string): SignedKeyFacts | undefined {
    const mac = this.mac(token.slice(0, this.tagStart), workspaceId);
    const middle = this.tagStart + TAG_HALF_LENGTH;
    // Both halves are compared as numbers, without an early exit: the time taken says nothing of how much of
    // a guessed tag was right.
    const difference =
      Math.abs(tagHalf(mac, 0) - decodeBase62(token.slice(this.tagStart, middle))) +
      Math.abs(tagHalf(mac, 1) - decodeBase62(token.slice(middle, middle + TAG_HALF_LENGTH)));
    if (difference !== 0) return undefined;
    const expiry = token.slice(this.nonceStart + NONCE_LENGTH, this.tagStart);
    return { id: this.idOf(mac), expiresAt: decodeBase62(expiry) };
  }

  private mac(signed: string, workspaceId: string): Buffer {
    return createHmac('sha256', this.secret).update(`${signed}\n${workspaceId}`).digest();
  }

  private idOf(mac: Buffer): string {
    let id = `${this.idPrefix}_`;
    for (let at = 2 * TAG_HALF_BYTES; at < 2 * TAG_HALF_BYTES + ID_LENGTH; at++)
      id += BASE62_ALPHABET.charAt((mac[at] ?? 0) % 62);
    return id;
  }
}

/** Half `half` (0 or 1) of the tag, as a number below 62^6. */
function tagHalf(mac: Buffer, half: 0 | 1): number {
  return mac.readUIntBE(half * TAG_HALF_BYTES, TAG_HALF_BYTES) % TAG_HALF_SPACE;
}

function tagOf(mac: Buffer): string {
  return encodeBase62(tagHalf(mac, 0), TAG_HALF_LENGTH) + encodeBase62(tagHalf(mac, 1), TAG_HALF_LENGTH);
}
