import { z } from 'zod';
import { listAuditLog } from '../../../services/audit/audit.js';
import type { ZodApp } from '../../context.js';
import { auditPageSchema } from '../../../contract/audit.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../schemas.js';

/** GET /api/v1/workspaces/{id}/audit-log: newest first, with an opaque cursor for the next page. */
export function auditLogRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'audit.read' },
      schema: {
        tags: ['audit'],
        operationId: 'listAuditEvents',
        summary: 'Read the audit log',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(200).default(50),
          cursor: z.string().max(64).optional().describe('next_cursor of the previous page'),
        }),
        response: withProblems(
          {
            200: jsonResponse(
              'Events, newest first, and the cursor of the next page (null on the last)',
              auditPageSchema,
            ),
          },
          managementProblems('read', 'audit.read'),
        ),
      },
    },
    (request) => listAuditLog(app.services.deps, request.params.id, request.query),
  );
}
