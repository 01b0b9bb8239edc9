import { brandContextSchema } from '../../../../core/brand-context.js';
import { getBrand } from '../../../../services/brand.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { withProblems, workspaceParams } from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/brand: the brand document, as the read operation returns it. */
export function getBrandRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/workspaces/:id/brand',
    {
      config: { permission: 'brand.read' },
      schema: {
        tags: ['brand'],
        summary: 'Get the brand',
        params: workspaceParams,
        response: withProblems({ 200: brandContextSchema }),
      },
    },
    (request) => getBrand(ctx.deps, request.params.id),
  );
}
