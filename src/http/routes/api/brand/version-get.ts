import { brandContextSchema } from '../../../../contract/brand-context.js';
import { brandVersionNumberSchema } from '../../../../contract/brand-versions.js';
import { brandEtag } from '../../../../services/brand/brand.js';
import { getBrandVersion } from '../../../../services/brand/versions.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
  BRAND_VERSION_HEADERS,
} from '../../../schemas.js';

/** The path of one version of the brand: `…/brand/versions/{version}`. */
export const brandVersionParams = workspaceParams.extend({
  version: brandVersionNumberSchema.describe('The version number (1 is the first)'),
});

/**
 * GET /api/v1/workspaces/{id}/brand/versions/{version}: the brand exactly as it was at that version, in the
 * shape GET …/brand answers (docs/brand-versions.md "History").
 */
export function getBrandVersionRoute(app: ZodApp): void {
  app.get(
    '/versions/:version',
    {
      config: { permission: 'brand.read' },
      schema: {
        tags: ['brand'],
        operationId: 'getBrandVersion',
        summary: 'Get one version of the brand',
        description:
          'The brand as it was published at that version, `version` and `updated_at` included; 404 `version_not_found` for a version the brand never had.',
        security: MANAGEMENT_SECURITY,
        params: brandVersionParams,
        response: withProblems(
          {
            200: {
              ...jsonResponse('The brand as it was at that version', brandContextSchema),
              headers: BRAND_VERSION_HEADERS,
            },
          },
          [...managementProblems('read', 'brand.read'), 'version_not_found'],
        ),
      },
    },
    async (request, reply) => {
      const brand = await getBrandVersion(app.services.deps, request.params.id, request.params.version);
      return reply
        .header('etag', brandEtag(brand))
        .header('brand-version', String(brand.version))
        .send(brand);
    },
  );
}
