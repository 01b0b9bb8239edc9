import { brandContextSchema } from '../../../../contract/brand-context.js';
import { brandNoteSchema } from '../../../../contract/brand-versions.js';
import { brandEtag } from '../../../../services/brand/brand.js';
import { restoreBrandVersion } from '../../../../services/brand/versions.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  BRAND_VERSION_HEADERS,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
} from '../../../schemas.js';
import { brandVersionParams } from './version-get.js';

/**
 * POST /api/v1/workspaces/{id}/brand/versions/{version}/restore: publishes that version's content as a new
 * version (docs/brand-versions.md "Restore"). Owners and admins, with review on too: a restore publishes.
 */
export function restoreBrandVersionRoute(app: ZodApp): void {
  app.post(
    '/versions/:version/restore',
    {
      config: { permission: 'brand.write' },
      schema: {
        tags: ['brand'],
        operationId: 'restoreBrandVersion',
        summary: 'Restore a version of the brand',
        description:
          'Publishes the content of `{version}` as a new version (201), with the note sent or "Restored version {version}"; history is kept, nothing is deleted. When the brand already holds that content, nothing is written and the brand is answered as it is (200). The body may be left out (with no Content-Type), or be `{}`.',
        security: MANAGEMENT_SECURITY,
        params: brandVersionParams,
        body: brandNoteSchema,
        response: withProblems(
          {
            201: {
              ...jsonResponse(
                'The brand as it is now: a new version with the restored content',
                brandContextSchema,
              ),
              headers: BRAND_VERSION_HEADERS,
            },
            200: {
              ...jsonResponse('The brand as it is: it already held that content', brandContextSchema),
              headers: BRAND_VERSION_HEADERS,
            },
          },
          [...managementProblems('write', 'brand.write'), 'version_not_found'],
        ),
      },
    },
    async (request, reply) => {
      const { brand, created } = await restoreBrandVersion(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.params.version,
        request.body?.note ?? null,
      );
      return reply
        .code(created ? 201 : 200)
        .header('etag', brandEtag(brand))
        .header('brand-version', String(brand.version))
        .send(brand);
    },
  );
}
