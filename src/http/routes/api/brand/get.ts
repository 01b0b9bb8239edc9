import { brandContextSchema } from '../../../../contract/brand-context.js';
import { brandEtag, getBrand } from '../../../../services/brand/brand.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
  BRAND_VERSION_HEADERS,
} from '../../../schemas.js';

/**
 * GET /api/v1/workspaces/{id}/brand: the brand document, as the read operation returns it, with the ETag
 * of its version for If-Match on PUT.
 */
export function getBrandRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'brand.read' },
      schema: {
        tags: ['brand'],
        operationId: 'getBrand',
        summary: 'Get the brand',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        response: withProblems(
          {
            200: {
              ...jsonResponse('The brand, as the read operation returns it', brandContextSchema),
              headers: BRAND_VERSION_HEADERS,
            },
          },
          managementProblems('read', 'brand.read'),
        ),
      },
    },
    async (request, reply) => {
      const brand = await getBrand(app.services.deps, request.params.id);
      return reply
        .header('etag', brandEtag(brand))
        .header('brand-version', String(brand.version))
        .send(brand);
    },
  );
}
