import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { BrandReader } from '../services/brand-reader.js';
import type { Credentials } from '../services/credentials.js';
import type { Deps } from '../services/deps.js';
import type { SignInService } from '../services/sign-in.js';
import type { TokenService } from '../services/tokens.js';
import type { UsageRecorder } from '../services/usage.js';

/** Everything a route may use; routes hold no SQL and reach the store only through services. */
export interface AppContext {
  deps: Deps;
  credentials: Credentials;
  reader: BrandReader;
  tokens: TokenService;
  signIn: SignInService;
  usage: UsageRecorder;
}

/** A Fastify instance whose routes are typed and validated by zod schemas. */
export type ZodApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;
