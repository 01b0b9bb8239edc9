import { brandContextSchema } from '../../../../contract/brand-context.js';
import { draftEtagOf, draftView, getBrandDraft } from '../../../../services/brand/draft.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** The `ETag` of a brand draft's answers, as the API reference describes it. */
export const DRAFT_ETAG_HEADER = {
  ETag: {
    type: 'string',
    description:
      'The draft’s revision, `"draft-N"` (never a published version’s ETag): send it as If-Match with a save, discard or publish of the draft to have it refused with 412 if someone saved the draft meanwhile.',
  },
};

/**
 * GET /api/v1/workspaces/{id}/brand/draft: the unpublished draft while review is on, in the brand's shape
 * (`version` the published version it was saved against), with its own ETag. Readers never see it.
 */
export function getBrandDraftRoute(app: ZodApp): void {
  app.get(
    '/draft',
    {
      config: { permission: 'brand.read' },
      schema: {
        tags: ['brand'],
        operationId: 'getBrandDraft',
        summary: 'Get the brand draft',
        description:
          'Only while review is `required` (docs/brand-versions.md "Review"): 404 `draft_not_found` when there is no draft, and always while review is off. `version` is the published version the draft was saved against.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        response: withProblems(
          {
            200: {
              ...jsonResponse('The draft, in the brand context’s shape', brandContextSchema),
              headers: DRAFT_ETAG_HEADER,
            },
          },
          [...managementProblems('read', 'brand.read'), 'draft_not_found'],
        ),
      },
    },
    async (request, reply) => {
      const draft = await getBrandDraft(app.services.deps, request.params.id);
      return reply.header('etag', draftEtagOf(draft)).send(draftView(draft));
    },
  );
}
