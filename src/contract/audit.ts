import { z } from 'zod';

const detailValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * Who did something: a signed-in user, a workspace API key, the operator at the server's CLI, or the service
 * itself (disabling a webhook endpoint whose deliveries have failed for days).
 */
export const auditActorSchema = z.union([
  z.object({ type: z.literal('user'), id: z.string().nullable(), email: z.string().nullable() }),
  z.object({ type: z.literal('api_key'), id: z.string().nullable() }),
  z.object({ type: z.literal('operator') }),
  z.object({ type: z.literal('system') }),
]);
export type AuditActor = z.output<typeof auditActorSchema>;

export const auditEventSchema = z
  .object({
    id: z.string(),
    action: z.string().describe('e.g. brand_key.created, brand_key.revoked, brand.updated, member.added'),
    actor: auditActorSchema,
    target: z.object({ type: z.string(), id: z.string().nullable() }),
    /** Names, roles, prefixes: never a secret. */
    details: z.record(z.string(), detailValue),
    created_at: z.string(),
  })
  .meta({ id: 'AuditEvent' });
export type AuditEvent = z.output<typeof auditEventSchema>;

export const auditPageSchema = z.object({
  events: z.array(auditEventSchema),
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  next_cursor: z.string().nullable(),
});
export type AuditPage = z.output<typeof auditPageSchema>;
