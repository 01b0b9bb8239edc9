import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AccountLinkThrottle, AccountMail } from '../services/accounts/account-email.js';
import type { BrandReader } from '../services/brand/reader.js';
import type { Credentials } from '../services/auth/credentials.js';
import type { Deps } from '../services/shared/deps.js';
import type { PasswordHasher } from '../services/auth/passwords.js';
import type { ReadLimits } from '../services/brand/read-limits.js';
import type { SecretBox } from '../services/shared/secret-box.js';
import type { SignInThrottle } from '../services/auth/sign-in.js';
import type { TokenKeys } from '../services/auth/tokens.js';
import type { UsageRecorder } from '../services/auth/usage.js';
import type { OAuthTokens } from '../services/oauth/tokens.js';
import type { Store } from '../store/store.js';
import type { WebhookSettings } from '../services/webhooks/webhooks.js';

/**
 * What the app's use cases (the functions of src/services) take first: the whole store, the clock, and the
 * components that several of them share.
 */
export type AppDeps = Deps & {
  store: Pick<Store, 'ping'>;
  /** What user tokens are signed and verified with. */
  tokenKeys: TokenKeys;
  /** Where uses of keys and tokens are recorded, for `last_used_at`. */
  usage: UsageRecorder;
  /** The bounded hasher all of sign-in's and account links' scrypt work goes through. */
  passwords: PasswordHasher;
  /** Seals webhook secrets and email bodies. */
  secrets: SecretBox;
  /** The address rules of webhook URLs, and how many endpoints a workspace may have. */
  webhookSettings: WebhookSettings;
};

/**
 * What routes reach the use cases with, built once per app: their deps, and the components that keep state
 * between requests. Routes hold no SQL and reach the store only through them.
 */
export interface AppServices {
  deps: AppDeps;
  credentials: Credentials;
  reader: BrandReader;
  /** Sign-in's attempt windows. */
  signInThrottle: SignInThrottle;
  /** What account email (invites, password resets) is sent with. */
  accountMail: AccountMail;
  /** The account links' attempt windows, and the reset requests waiting for their answers. */
  accountLinks: AccountLinkThrottle;
  /** The read operation's per-credential budget; undefined when reads are not limited. */
  readLimits: ReadLimits | undefined;
  /** Verifies the OAuth access tokens of `/mcp`, and when each grant was last used (docs/oauth.md "Tokens"). */
  oauthTokens: OAuthTokens;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Decorated on the root instance before any route registers, so every route group sees the same ones. */
    services: AppServices;
  }
}

/** A Fastify instance whose routes are typed and validated by zod schemas. */
export type ZodApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** Registers one route on its group's instance, at its path relative to the group's prefix. */
export type Route = (app: ZodApp) => void;
