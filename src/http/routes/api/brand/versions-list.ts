import { z } from 'zod';
import { brandVersionPageSchema } from '../../../../contract/brand-versions.js';
import { listBrandVersions } from '../../../../services/brand/versions.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/**
 * GET /api/v1/workspaces/{id}/brand/versions: the brand's history, newest first, with an opaque cursor for
 * the next page (docs/brand-versions.md "History").
 */
export function listBrandVersionsRoute(app: ZodApp): void {
  app.get(
    '/versions',
    {
      config: { permission: 'brand.read' },
      schema: {
        tags: ['brand'],
        operationId: 'listBrandVersions',
        summary: 'List the versions of the brand',
        description:
          'Every version the brand has had, newest first: who published it, when, its note and the sections it changed. Read one with GET …/versions/{version}.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(200).default(50),
          cursor: z.string().max(64).optional().describe('next_cursor of the previous page'),
        }),
        response: withProblems(
          {
            200: jsonResponse(
              'Versions, newest first, and the cursor of the next page (null on the last)',
              brandVersionPageSchema,
            ),
          },
          managementProblems('read', 'brand.read'),
        ),
      },
    },
    (request) => listBrandVersions(app.services.deps, request.params.id, request.query),
  );
}
