import type { z } from 'zod';
import { KEY_VIEW_SCHEMAS, LISTED_KEY_SCHEMAS } from '../../../../contract/keys.js';
import { KEY_KIND_LIST, type KeyKind } from '../../../../core/key-kinds.js';
import { KEY_SERVICES, type KeyService } from '../../../../services/keys/keys.js';

/** Every kind of workspace key has the same three routes; this is what they need to know of one. */
export interface KeyRoutes {
  kind: KeyKind;
  schema: z.ZodType;
  /** A key in the listing: with its creator. */
  listedSchema: z.ZodType;
  service: KeyService;
}

export const KEY_ROUTES: readonly KeyRoutes[] = KEY_KIND_LIST.map((kind) => ({
  kind,
  schema: KEY_VIEW_SCHEMAS[kind.id],
  listedSchema: LISTED_KEY_SCHEMAS[kind.id],
  service: KEY_SERVICES[kind.id],
}));
