import { brandContextSchema } from '../../../../contract/brand-context.js';
import { brandDocumentSchema } from '../../../../core/brand-context.js';
import { brandEtag, replaceBrand } from '../../../../services/brand/brand.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  ifMatchHeaders,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  VERSION_ETAG_HEADER,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/**
 * PUT /api/v1/workspaces/{id}/brand: replaces the whole brand (knowledge, assets, skills and preferences
 * included). Entries keep their ids when sent with them. An invalid document changes nothing; with
 * If-Match, neither does one based on a version someone has saved over since (412).
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
        description:
          'Send the ETag that GET answered as If-Match: if someone else saved the brand since, the PUT answers 412 `precondition_failed` and writes nothing. Without If-Match (or with `*`) the document replaces whatever version is current.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        headers: ifMatchHeaders,
        body: brandDocumentSchema,
        response: withProblems(
          {
            200: {
              ...jsonResponse('The brand as it is now', brandContextSchema),
              headers: VERSION_ETAG_HEADER,
            },
          },
          [...managementProblems('write', 'brand.write'), 'precondition_failed'],
        ),
      },
    },
    async (request, reply) => {
      const brand = await replaceBrand(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.body,
        request.headers['if-match'],
      );
      return reply.header('etag', brandEtag(brand)).send(brand);
    },
  );
}
