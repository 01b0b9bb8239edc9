import { brandContextSchema } from '../../../../contract/brand-context.js';
import { brandDocumentSchema } from '../../../../core/brand-context.js';
import { draftEtagOf, draftView, saveBrandDraft } from '../../../../services/brand/draft.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  ifMatchHeaders,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';
import { DRAFT_ETAG_HEADER } from './draft-get.js';

/**
 * PUT /api/v1/workspaces/{id}/brand/draft: saves the whole brand document as the draft while review is on;
 * every member may. Entries keep their ids as on PUT …/brand. With If-Match, only over the draft it names.
 */
export function putBrandDraftRoute(app: ZodApp): void {
  app.put(
    '/draft',
    {
      config: { permission: 'brand.draft.write' },
      schema: {
        tags: ['brand'],
        operationId: 'saveBrandDraft',
        summary: 'Save the brand draft',
        description:
          'Only while review is `required` (else 409 `review_off`: save to the brand directly). The draft is saved against the version published now, which becomes its `version`. Send the ETag GET …/brand/draft answered as If-Match: if someone saved the draft since (or it is gone), 412 `draft_precondition_failed` and nothing is written. Without If-Match the document replaces whatever draft there is, or starts one.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        headers: ifMatchHeaders,
        body: brandDocumentSchema,
        response: withProblems(
          {
            200: {
              ...jsonResponse('The draft as it is now', brandContextSchema),
              headers: DRAFT_ETAG_HEADER,
            },
          },
          [...managementProblems('write', 'brand.draft.write'), 'review_off', 'draft_precondition_failed'],
        ),
      },
    },
    async (request, reply) => {
      const draft = await saveBrandDraft(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.body,
        {
          ifMatch: request.headers['if-match'],
        },
      );
      return reply.header('etag', draftEtagOf(draft)).send(draftView(draft));
    },
  );
}
