import { z } from 'zod';
import { brandVersionDiffSchema, brandVersionNumberSchema } from '../../../../contract/brand-versions.js';
import { diffBrandVersions } from '../../../../services/brand/versions.js';
import type { ZodApp } from '../../../context.js';
import { jsonResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';
import { brandVersionParams } from './version-get.js';

/**
 * GET /api/v1/workspaces/{id}/brand/versions/{version}/diff?from={m}: what changed, section by section,
 * between two versions (docs/brand-versions.md "Diff").
 */
export function diffBrandVersionsRoute(app: ZodApp): void {
  app.get(
    '/versions/:version/diff',
    {
      config: { permission: 'brand.read' },
      schema: {
        tags: ['brand'],
        operationId: 'diffBrandVersions',
        summary: 'Compare two versions of the brand',
        description:
          'The changes from version `from` (by default the one before) to `{version}`, per section: only the sections that changed, each change with a JSON Pointer from the brand root and the values before and after. List entries are matched by id, so an edited entry shows as changes inside it and a reordered one as a `move`. Version 1 has no version before it: name `from`.',
        security: MANAGEMENT_SECURITY,
        params: brandVersionParams,
        querystring: z.object({
          from: brandVersionNumberSchema
            .optional()
            .describe('The version to compare with; by default the one before {version}'),
        }),
        response: withProblems(
          { 200: jsonResponse('The changes between the two versions, per section', brandVersionDiffSchema) },
          [...managementProblems('read', 'brand.read'), 'version_not_found'],
        ),
      },
    },
    (request) =>
      diffBrandVersions(app.services.deps, request.params.id, request.params.version, request.query.from),
  );
}
