import type { z } from 'zod';
import { apiKeySchema, brandKeySchema } from '../../../../contract/keys.js';
import { KEY_KIND_LIST, type KeyKind, type KeyKindId } from '../../../../core/key-kinds.js';
import { KEY_SERVICES, type KeyService } from '../../../../services/keys.js';

/**
 * What the API reference shows of each kind beyond its row of KEY_KINDS: the tag of its routes, and the
 * schema of its keys (src/contract/keys.ts).
 */
const REFERENCE = {
  brand: { tag: 'brand keys', schema: brandKeySchema },
  api: { tag: 'workspace API keys', schema: apiKeySchema },
} satisfies Record<KeyKindId, { tag: string; schema: z.ZodType }>;

/** Every kind of workspace key has the same three routes; this is what they need to know of one. */
export interface KeyRoutes {
  kind: KeyKind;
  tag: string;
  schema: z.ZodType;
  service: KeyService;
}

export const KEY_ROUTES: readonly KeyRoutes[] = KEY_KIND_LIST.map((kind) => ({
  kind,
  ...REFERENCE[kind.id],
  service: KEY_SERVICES[kind.id],
}));
