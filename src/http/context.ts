import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AccountLinks, AccountMail } from '../services/accounts/account-email.js';
import type { BrandReader } from '../services/brand/reader.js';
import type { Credentials } from '../services/auth/credentials.js';
import type { Deps } from '../services/shared/deps.js';
import type { EmailService } from '../services/email/messages.js';
import type { ReadLimits } from '../services/brand/read-limits.js';
import type { SignInService } from '../services/auth/sign-in.js';
import type { TokenService } from '../services/auth/tokens.js';
import type { UsageRecorder } from '../services/auth/usage.js';
import type { WebhookService } from '../services/webhooks/webhooks.js';

/** The app's use cases, built once per app; routes hold no SQL and reach the store only through them. */
export interface AppServices {
  /** The store and clock that the function-style use cases of src/services take. */
  deps: Deps;
  credentials: Credentials;
  reader: BrandReader;
  tokens: TokenService;
  signIn: SignInService;
  usage: UsageRecorder;
  webhooks: WebhookService;
  /** What account email (invites, password resets) is sent with. */
  accountMail: AccountMail;
  accountLinks: AccountLinks;
  email: EmailService;
  /** The read operation's per-credential budget; undefined when reads are not limited. */
  readLimits: ReadLimits | undefined;
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
