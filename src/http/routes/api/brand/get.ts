import { brandContextSchema } from '../../../../contract/brand-context.js';
import { getBrand } from '../../../../services/brand.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/brand: the brand document, as the read operation returns it. */
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
          { 200: jsonResponse('The brand, as the read operation returns it', brandContextSchema) },
          managementProblems('read', 'brand.read'),
        ),
      },
    },
    (request) => getBrand(app.services.deps, request.params.id),
  );
}
