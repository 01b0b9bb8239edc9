import { z } from 'zod';
import { discardBrandDraft } from '../../../../services/brand/draft.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  ifMatchHeaders,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** DELETE /api/v1/workspaces/{id}/brand/draft: discards the draft unpublished (owners and admins). */
export function deleteBrandDraftRoute(app: ZodApp): void {
  app.delete(
    '/draft',
    {
      config: { permission: 'brand.publish' },
      schema: {
        tags: ['brand'],
        operationId: 'discardBrandDraft',
        summary: 'Discard the brand draft',
        description:
          'Only while review is `required` (else 409 `review_off`). The published brand stays as it is. With If-Match (the draft’s ETag), only the revision it names is discarded: 412 `draft_precondition_failed` if someone saved the draft since.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        headers: ifMatchHeaders,
        response: withProblems({ 204: z.null().describe('Discarded; the published brand is as it was') }, [
          ...managementProblems('write', 'brand.publish'),
          'review_off',
          'draft_not_found',
          'draft_precondition_failed',
        ]),
      },
    },
    async (request, reply) => {
      await discardBrandDraft(app.services.deps, actorOf(request), request.params.id, {
        ifMatch: request.headers['if-match'],
      });
      return reply.code(204).send(null);
    },
  );
}
