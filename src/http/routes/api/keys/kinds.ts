import type { z } from 'zod';
import type { ProblemCode } from '../../../../core/errors.js';
import {
  createApiKey,
  createBrandKey,
  listApiKeys,
  listBrandKeys,
  revokeApiKey,
  revokeBrandKey,
} from '../../../../services/keys.js';
import { apiKeySchema, brandKeySchema } from '../../../schemas.js';

/** The two kinds of workspace key share their three routes; this is what tells them apart. */
export interface KeyRoutes {
  /** The collection's path under /api/v1/workspaces/{id}. */
  path: 'brand-keys' | 'api-keys';
  tag: string;
  /** How summaries name one key. */
  noun: string;
  /** How operationIds name one key: `list${operationNoun}s`. */
  operationNoun: 'BrandKey' | 'ApiKey';
  /** What revoking a key the workspace does not have answers. */
  notFound: ProblemCode;
  /** What the key is for, told to whoever creates one. */
  purpose: string;
  schema: z.ZodType;
  create: typeof createBrandKey;
  list: typeof listBrandKeys;
  revoke: typeof revokeBrandKey;
}

export const BRAND_KEY_ROUTES: KeyRoutes = {
  path: 'brand-keys',
  tag: 'brand keys',
  noun: 'brand read key',
  operationNoun: 'BrandKey',
  notFound: 'key_not_found',
  purpose: 'It reads this workspace’s brand context (POST /functions/v1/brand-agent) and nothing else.',
  schema: brandKeySchema,
  create: createBrandKey,
  list: listBrandKeys,
  revoke: revokeBrandKey,
};

export const API_KEY_ROUTES: KeyRoutes = {
  path: 'api-keys',
  tag: 'workspace API keys',
  noun: 'workspace API key',
  operationNoun: 'ApiKey',
  notFound: 'api_key_not_found',
  purpose: 'It reads and writes this workspace’s campaign drafts and nothing else.',
  schema: apiKeySchema,
  create: createApiKey,
  list: listApiKeys,
  revoke: revokeApiKey,
};
