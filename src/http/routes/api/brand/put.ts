import { brandContextSchema } from '../../../../contract/brand-context.js';
import { brandUpdateSchema } from '../../../../contract/brand-versions.js';
import { brandEtag, replaceBrand } from '../../../../services/brand/brand.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  ifMatchHeaders,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
  BRAND_VERSION_HEADERS,
} from '../../../schemas.js';

/**
 * PUT /api/v1/workspaces/{id}/brand: replaces the whole brand (knowledge, assets, skills and preferences
 * included) as a new version, with an optional `note` beside the document for the history. Entries keep their
 * ids when sent with them. An invalid document changes nothing; with If-Match, neither does one based on a
 * version someone has saved over since (412); where review is required, neither does any (409).
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
          'Send the ETag that GET answered as If-Match: if someone else saved the brand since, the PUT answers 412 `precondition_failed` and writes nothing. Without If-Match (or with `*`) the document replaces whatever version is current. Every change is a new version in the history (GET …/brand/versions), with the optional `note` sent beside the document. Where the workspace requires review, 409 `review_required`: save to the draft (PUT …/brand/draft).',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        headers: ifMatchHeaders,
        body: brandUpdateSchema,
        response: withProblems(
          {
            200: {
              ...jsonResponse('The brand as it is now', brandContextSchema),
              headers: BRAND_VERSION_HEADERS,
            },
          },
          [...managementProblems('write', 'brand.write'), 'precondition_failed', 'review_required'],
        ),
      },
    },
    async (request, reply) => {
      const { note, ...document } = request.body;
      const brand = await replaceBrand(app.services.deps, actorOf(request), request.params.id, document, {
        ifMatch: request.headers['if-match'],
        note,
      });
      return reply
        .header('etag', brandEtag(brand))
        .header('brand-version', String(brand.version))
        .send(brand);
    },
  );
}
