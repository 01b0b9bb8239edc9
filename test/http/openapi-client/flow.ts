/*
 * A client of the management API and the read operation, written as a user of the API would write one: with
 * openapi-fetch over the types openapi-typescript generates from GET /openapi.json, and no cast. Type-checked
 * (and run) by test/http/openapi-client.test.ts, which generates `brand-context-api` from the served document;
 * outside that test the module does not exist, so this folder is left out of the project's tsc and ESLint.
 */
import type { paths } from 'brand-context-api';
import createClient from 'openapi-fetch';

export interface FlowResult {
  keyPrefix: string;
  brandName: string | undefined;
  brandVersion: number;
  /** The fields of the answer to a read of two sections. */
  sectionFields: string[];
  voice: string | undefined;
  primaryColor: string | null | undefined;
  campaignId: string;
  campaignStatus: 'draft' | 'scheduled' | 'sent';
  auditActions: string[];
}

/** Signs in, creates a brand read key, reads the brand whole and in part, drafts a campaign, lists the audit log. */
export async function clientFlow(
  baseUrl: string,
  login: { email: string; password: string },
  workspaceId: string,
): Promise<FlowResult> {
  // JSON answers only (problems and design tokens included): no read here asks for Markdown.
  const api = createClient<paths, `application/${string}json`>({ baseUrl });
  const workspace = { path: { id: workspaceId } };

  const session = await api.POST('/auth/v1/token', { body: login });
  if (!session.data) throw new Error(`sign-in failed: ${session.error?.code ?? session.response.status}`);
  const asUser = { Authorization: `Bearer ${session.data.access_token}` };

  const created = await api.POST('/api/v1/workspaces/{id}/brand-keys', {
    params: workspace,
    headers: asUser,
    body: { name: 'generated client' },
  });
  if (!created.data) throw new Error(`key not created: ${created.error?.code ?? created.response.status}`);
  const asKey = { Authorization: `Bearer ${created.data.key}` };

  const whole = await api.POST('/functions/v1/brand-agent', {
    headers: asKey,
    body: { action: 'context', workspace_id: workspaceId },
  });
  // The operation answers design tokens too (format "dtcg"): they carry $extensions, a brand context does not.
  if (!whole.data || '$extensions' in whole.data)
    throw new Error(`brand not read: ${whole.error?.code ?? whole.response.status}`);

  const some = await api.POST('/functions/v1/brand-agent', {
    headers: asKey,
    body: { action: 'context', workspace_id: workspaceId, sections: ['voice', 'colors'] },
  });
  if (!some.data || '$extensions' in some.data)
    throw new Error(`sections not read: ${some.error?.code ?? some.response.status}`);

  const draft = await api.POST('/api/v1/workspaces/{id}/campaigns', {
    params: workspace,
    headers: asUser,
    body: { name: 'Spring launch', subject: 'Fresh beans are in' },
  });
  if (!draft.data) throw new Error(`draft not created: ${draft.error?.code ?? draft.response.status}`);

  const audit = await api.GET('/api/v1/workspaces/{id}/audit-log', {
    params: { ...workspace, query: { limit: 20 } },
    headers: asUser,
  });
  if (!audit.data) throw new Error(`audit log not read: ${audit.error?.code ?? audit.response.status}`);

  return {
    keyPrefix: created.data.prefix,
    brandName: whole.data.name,
    brandVersion: whole.data.version,
    sectionFields: Object.keys(some.data),
    voice: some.data.voice,
    primaryColor: some.data.colors?.primary,
    campaignId: draft.data.id,
    campaignStatus: draft.data.status,
    auditActions: audit.data.events.map((event) => event.action),
  };
}
