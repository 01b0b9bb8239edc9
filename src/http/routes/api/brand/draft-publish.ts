import { brandContextSchema } from '../../../../contract/brand-context.js';
import { brandNoteSchema } from '../../../../contract/brand-versions.js';
import { brandEtag } from '../../../../services/brand/brand.js';
import { publishBrandDraft } from '../../../../services/brand/draft.js';
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
 * POST /api/v1/workspaces/{id}/brand/draft/publish: owners and admins publish the draft as a new version of
 * the brand, with an optional note. The draft goes in the same transaction.
 */
export function publishBrandDraftRoute(app: ZodApp): void {
  app.post(
    '/draft/publish',
    {
      config: { permission: 'brand.publish' },
      schema: {
        tags: ['brand'],
        operationId: 'publishBrandDraft',
        summary: 'Publish the brand draft',
        description:
          'Publishes the draft as a new version (201) and removes it; a draft holding the published content already is removed and the brand answered as it is (200). If the published brand changed since the draft was saved, 409 `draft_outdated` and nothing changes: save the draft again first. Of two publishes at once, one gets the draft and the other 404 `draft_not_found`. If-Match (the draft’s ETag) is optional. The body may be left out (with no Content-Type), or be `{}`.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        headers: ifMatchHeaders,
        body: brandNoteSchema,
        response: withProblems(
          {
            201: {
              ...jsonResponse('The brand as published: its new version', brandContextSchema),
              headers: BRAND_VERSION_HEADERS,
            },
            200: {
              ...jsonResponse('The brand as it is: the draft changed nothing', brandContextSchema),
              headers: BRAND_VERSION_HEADERS,
            },
          },
          [
            ...managementProblems('write', 'brand.publish'),
            'review_off',
            'draft_not_found',
            'draft_precondition_failed',
            'draft_outdated',
          ],
        ),
      },
    },
    async (request, reply) => {
      const { brand, created } = await publishBrandDraft(
        app.services.deps,
        actorOf(request),
        request.params.id,
        {
          ifMatch: request.headers['if-match'],
          note: request.body?.note ?? null,
        },
      );
      return reply
        .code(created ? 201 : 200)
        .header('etag', brandEtag(brand))
        .header('brand-version', String(brand.version))
        .send(brand);
    },
  );
}
