import { brandContextSchema, brandDocumentSchema } from '../../../../contract/brand-context.js';
import { replaceBrand } from '../../../../services/brand.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  BODY_PROBLEMS,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/**
 * PUT /api/v1/workspaces/{id}/brand: replaces the whole brand (knowledge, assets, skills and preferences
 * included). Entries keep their ids when sent with them. An invalid document changes nothing.
 */
export function putBrandRoute(app: ZodApp): void {
  app.put(
    '',
    {
      config: { permission: 'brand.write' },
      schema: {
        tags: ['brand'],
        operationId: 'replaceBrand',
        summary: 'Replace the brand',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        body: brandDocumentSchema,
        response: withProblems({ 200: jsonResponse('The brand as it is now', brandContextSchema) }, [
          ...managementProblems('write', 'brand.write'),
          ...BODY_PROBLEMS,
        ]),
      },
    },
    (request) => replaceBrand(app.services.deps, actorOf(request), request.params.id, request.body),
  );
}
