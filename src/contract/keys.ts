import { z } from 'zod';
import { type KeyKind, mapKeyKinds } from '../core/key-kinds.js';
import { listedCreatorSchema } from './credential-creator.js';
import { credentialStatusSchema } from './credential-status.js';

/** A workspace key as listings show it: never the secret, nor its hash. */
function keyViewSchema(kind: KeyKind) {
  return z
    .object({
      id: z.string(),
      workspace_id: z.string(),
      name: z.string(),
      prefix: z.string().describe(`${kind.prefix} and the first four random characters`),
      last4: z.string(),
      status: credentialStatusSchema,
      created_by: z.string().nullable(),
      created_at: z.string(),
      expires_at: z.string().nullable().describe('Null: the key lives until it is revoked'),
      revoked_at: z.string().nullable(),
      last_used_at: z.string().nullable().describe('Accurate to 60 seconds'),
    })
    .meta({ id: kind.codeName });
}

/** Every kind of key is shown the same way; only its documentation (its prefix, its schema id) differs. */
export const KEY_VIEW_SCHEMAS = mapKeyKinds(keyViewSchema);

export type KeyView = z.infer<ReturnType<typeof keyViewSchema>>;

/** A key in its kind's listing: its view, and who created it, marked when they have left the workspace. */
function listedKeySchema(kind: KeyKind) {
  return KEY_VIEW_SCHEMAS[kind.id]
    .extend({ creator: listedCreatorSchema })
    .meta({ id: `Listed${kind.codeName}` });
}

export const LISTED_KEY_SCHEMAS = mapKeyKinds(listedKeySchema);

export type ListedKey = z.infer<ReturnType<typeof listedKeySchema>>;

export const newKeySchema = z.strictObject({
  name: z.string().describe('A descriptive name, e.g. "newsletter pipeline"'),
});

/** The create call's answer: the only time the key itself is shown. */
export const createdKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    key: z.string().describe('The key itself: shown only in this response'),
    prefix: z.string(),
    created_at: z.string(),
    expires_at: z.string().nullable().describe('Null: the key lives until it is revoked'),
  })
  .meta({ id: 'CreatedKey' });

export type CreatedKey = z.infer<typeof createdKeySchema>;
