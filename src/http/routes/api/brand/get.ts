import { brandContextSchema } from '../../../../core/brand-context.js';
import { getBrand } from '../../../../services/brand.js';
import type { AppContext, ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/brand: the brand document, as the read operation returns it. */
export function getBrandRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/workspaces/:id/brand',
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
    (request) => getBrand(ctx.deps, request.params.id),
  );
}
