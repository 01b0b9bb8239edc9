import { readFileSync } from 'node:fs';
import { type CallToolResult, type GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  CAMPAIGN_CONTENT_FIELDS,
  CAMPAIGN_STATUSES,
  type CampaignContentField,
} from '../contract/campaigns.js';
import { BRAND_SECTIONS, type BrandContext, type BrandSection } from '../core/brand-context.js';
import type { McpConfig } from './config.js';
import { brandContextToolOutput, campaignListSchema, campaignSchema } from './schemas.js';
import { type ServiceClient, ServiceError } from './service-client.js';

export const BRAND_RESOURCE_URI = 'brand-context://brand';

export interface McpServerDeps {
  client: ServiceClient;
  config: Pick<McpConfig, 'workspaceId'>;
  /** One line for the operator (stderr on stdio); never given a secret. */
  log?: (line: string) => void;
}

const INSTRUCTIONS = [
  "Brand Context serves a workspace's brand (voice, colors, fonts, social links, knowledge, logos and assets, skills, preferences) and its email campaign drafts.",
  'Call get_brand_context before writing or designing anything for the brand, and follow it.',
  'Save emails you draft with create_campaign_draft; change a draft with update_campaign_draft, passing the version you last read.',
  'Nothing here sends an email: a person reviews, schedules and sends drafts in the app.',
].join(' ');

const workspaceIdArg = z
  .string()
  .max(128)
  .optional()
  .describe(
    "Workspace id (ws_…). Omit it to use the configured default workspace, or the user's only workspace; when the user has several, the error lists their ids.",
  );
const campaignIdArg = z
  .string()
  .min(1)
  .max(128)
  .describe('Campaign id (cmp_…), from list_campaigns or create_campaign_draft.');
/** What a model should know to write each field; `name` is told apart, since only a new draft needs it. */
const draftFields = {
  subject: z
    .string()
    .optional()
    .describe('Email subject line: one line, short (about 60 characters at most).'),
  preheader: z
    .string()
    .optional()
    .describe(
      'Preview text shown after the subject in most inboxes: one line (about 100 characters), complementing the subject.',
    ),
  body_html: z
    .string()
    .optional()
    .describe('Complete email-safe HTML body (inline styles, a single column of at most 600px).'),
  body_text: z.string().optional().describe('Plain-text version of the same email.'),
} satisfies Record<Exclude<CampaignContentField, 'name'>, z.ZodType>;

/** The content fields as a model reads a list of them: "a, b or c". */
const CONTENT_FIELD_LIST = `${CAMPAIGN_CONTENT_FIELDS.slice(0, -1).join(', ')} or ${CAMPAIGN_CONTENT_FIELDS.slice(-1).join('')}`;

const getBrandContextInput = z.strictObject({
  workspace_id: workspaceIdArg,
  fields: z
    .array(z.enum(BRAND_SECTIONS))
    .min(1)
    .optional()
    .describe(
      'Only these sections of the brand context, e.g. ["voice", "colors"]; omit it for the whole brand context. workspace_id, updated_at and version always come along.',
    ),
});

const listCampaignsInput = z.strictObject({
  workspace_id: workspaceIdArg,
  status: z.enum(CAMPAIGN_STATUSES).optional().describe('Only campaigns with this status.'),
  limit: z.number().int().min(1).max(100).optional().describe('Page size, 1-100 (default 20).'),
  cursor: z.string().min(1).optional().describe('The next_cursor of the previous page, to continue listing.'),
});

const getCampaignInput = z.strictObject({ workspace_id: workspaceIdArg, campaign_id: campaignIdArg });

const createDraftInput = z.strictObject({
  workspace_id: workspaceIdArg,
  name: z
    .string()
    .min(1)
    .max(200)
    .describe('Internal name of the campaign (1-200 characters), e.g. "Spring launch newsletter".'),
  ...draftFields,
});

const updateDraftInput = z.strictObject({
  workspace_id: workspaceIdArg,
  campaign_id: campaignIdArg,
  version: z
    .number()
    .int()
    .min(1)
    .describe(
      "The campaign's current version, as last returned by get_campaign, list_campaigns, create_campaign_draft or update_campaign_draft.",
    ),
  name: z.string().min(1).max(200).optional().describe('New internal name (1-200 characters).'),
  ...draftFields,
});

const promptArgs = z.object({
  topic: z.string().min(1).describe('What the email is about, e.g. "our new Ethiopian single origin".'),
  audience: z
    .string()
    .optional()
    .describe('Who receives it, e.g. "subscribers who have not ordered in 3 months".'),
  workspace_id: z.string().optional().describe('Workspace id (ws_…); omit it for the default workspace.'),
});

/** Extra advice for a model, by problem code, on top of the service's own resolution. */
const MODEL_HINTS: Partial<Record<ServiceError['code'], string>> = {
  version_mismatch:
    'Someone changed the campaign after you read it: call get_campaign to read its current content and version, reapply your change to that content, then call update_campaign_draft with the new version. Never overwrite the other edit blindly.',
  campaign_not_draft:
    'Only drafts can be changed: create a new draft with create_campaign_draft instead, or ask the user.',
  campaign_not_found: 'Call list_campaigns to find the right campaign id.',
  invalid_request: 'Correct the named arguments and call the tool again.',
  workspace_forbidden:
    'The configured credentials have no access to that workspace: check workspace_id, or omit it to use the default workspace.',
  workspace_not_found: 'Check workspace_id, or omit it to use the default workspace.',
};
const CREDENTIAL_HINT =
  'Retrying will not help: tell the user that the credentials of the Brand Context MCP server (BRAND_CONTEXT_ACCESS_TOKEN or BRAND_READ_KEY in the MCP client configuration) need to be replaced.';

/** The tool error text: code, detail, field errors and what to do — never a credential. */
export function describeError(error: unknown): string {
  if (!(error instanceof ServiceError)) {
    const message = error instanceof Error ? error.message : String(error);
    return `Brand Context MCP server error: ${message}`;
  }
  const status = error.extra.status === undefined ? '' : ` (HTTP ${String(error.extra.status)})`;
  const lines = [`Brand Context error ${error.code}${status}: ${error.detail}`];
  const fields = error.extra.fields ?? [];
  if (fields.length > 0) {
    lines.push('Field errors:', ...fields.map((issue) => `- ${issue.field || '(body)'}: ${issue.message}`));
  }
  if (error.resolution !== '') lines.push(`Resolution: ${error.resolution}`);
  const hint = MODEL_HINTS[error.code] ?? (error.extra.status === 401 ? CREDENTIAL_HINT : undefined);
  if (hint !== undefined) lines.push(`Next step: ${hint}`);
  if (error.extra.requestId !== undefined) lines.push(`Request id: ${error.extra.requestId}`);
  return lines.join('\n');
}

function serverVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** Only the asked sections, in the documented order, plus the identifying fields. */
export function pickSections(
  context: BrandContext,
  fields: readonly BrandSection[] | undefined,
): Partial<BrandContext> {
  if (fields === undefined) return context;
  const wanted = new Set(fields);
  const picked: Partial<BrandContext> = { workspace_id: context.workspace_id };
  for (const section of BRAND_SECTIONS) {
    if (wanted.has(section)) Object.assign(picked, { [section]: context[section] });
  }
  return { ...picked, updated_at: context.updated_at, version: context.version };
}

/**
 * The MCP server: five tools, the default workspace's brand context as a resource, and a prompt that drafts
 * an on-brand email. Every handler is a call to the service through `client`; nothing opens the database.
 */
export function createBrandContextMcpServer({
  client,
  config,
  log = () => undefined,
}: McpServerDeps): McpServer {
  const server = new McpServer(
    { name: 'brand-context', version: serverVersion() },
    { instructions: INSTRUCTIONS },
  );

  /** The argument, else the configured default, else the access token's user's only workspace. */
  async function resolveWorkspace(requested: string | undefined): Promise<string> {
    // Models often send "" for an optional argument they mean to leave out.
    if (requested !== undefined && requested !== '') return requested;
    if (config.workspaceId !== undefined) return config.workspaceId;
    const workspaces = await client.listWorkspaces();
    const [only] = workspaces;
    if (only !== undefined && workspaces.length === 1) return only.id;
    if (only === undefined) {
      throw new ServiceError(
        'no_workspace',
        'The account of BRAND_CONTEXT_ACCESS_TOKEN is not a member of any workspace.',
        'Ask the user to have a workspace owner or admin add their account as a member, or to create a workspace.',
      );
    }
    const listed = workspaces.map((w) => `${w.id} (${JSON.stringify(w.name)}, ${w.role})`).join(', ');
    throw new ServiceError(
      'workspace_required',
      `The user belongs to ${String(workspaces.length)} workspaces and no default workspace is configured: ${listed}.`,
      'Call the tool again with workspace_id set to one of these ids (ask the user which brand they mean if unclear). A default can be set with BRAND_CONTEXT_WORKSPACE_ID in the MCP server configuration.',
    );
  }

  async function runTool(tool: string, work: () => Promise<object>): Promise<CallToolResult> {
    try {
      const data = await work();
      return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
    } catch (error) {
      // The code and request id let an operator find the service's log line; the detail stays with the model.
      const { code, requestId } =
        error instanceof ServiceError
          ? { code: error.code, requestId: error.extra.requestId }
          : { code: 'internal_error', requestId: undefined };
      log(`${tool} failed: ${code}${requestId === undefined ? '' : ` (request ${requestId})`}`);
      return { content: [{ type: 'text', text: describeError(error) }], isError: true };
    }
  }

  server.registerTool(
    'get_brand_context',
    {
      title: 'Get brand context',
      description:
        'Returns the brand context of a workspace: name, description, voice (how the brand writes), colors (#RRGGBB by role, plus a palette), fonts (heading and body, with fallbacks), social links, knowledge entries (facts, guidelines, references), logos and other assets (URLs, sizes, alt text), skills (instructions for tasks such as writing subject lines) and preferences (e.g. language, sign_off). Call it before writing, designing or reviewing anything for the brand, and follow it; use only its facts. Pass `fields` to get only the sections you need. Read-only.',
      inputSchema: getBrandContextInput,
      outputSchema: brandContextToolOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ workspace_id, fields }) =>
      runTool('get_brand_context', async () =>
        pickSections(await client.getBrandContext(await resolveWorkspace(workspace_id)), fields),
      ),
  );

  server.registerTool(
    'list_campaigns',
    {
      title: 'List campaigns',
      description:
        "Lists the workspace's email campaigns, newest first, without their bodies: id, name, subject, preheader, status (draft, scheduled or sent), version and timestamps. Use it to find a campaign's id or to see what was already written before drafting something new; call get_campaign for a campaign's bodies. The answer is one page: when next_cursor is not null, pass it as `cursor` to get the next page. Read-only.",
      inputSchema: listCampaignsInput,
      outputSchema: campaignListSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ workspace_id, status, limit, cursor }) =>
      runTool('list_campaigns', async () =>
        client.listCampaigns(await resolveWorkspace(workspace_id), { status, limit, cursor }),
      ),
  );

  server.registerTool(
    'get_campaign',
    {
      title: 'Get campaign',
      description:
        'Returns one campaign: name, subject, preheader, HTML and plain-text bodies, status (draft, scheduled or sent) and its current version. Read a campaign before changing it: update_campaign_draft needs the current version. Read-only.',
      inputSchema: getCampaignInput,
      outputSchema: campaignSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ workspace_id, campaign_id }) =>
      runTool('get_campaign', async () =>
        client.getCampaign(await resolveWorkspace(workspace_id), campaign_id),
      ),
  );

  server.registerTool(
    'create_campaign_draft',
    {
      title: 'Create campaign draft',
      description:
        'Saves a new email campaign draft in the workspace and returns it (status draft, version 1, with its id). Use it to save an email you wrote for the brand (call get_brand_context first): name is an internal label; subject, preheader, body_html and body_text can also be filled in later with update_campaign_draft. Nothing is sent or scheduled: a person reviews drafts in the app. Each call creates another draft, so call it once per email.',
      inputSchema: createDraftInput,
      outputSchema: campaignSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ workspace_id, ...fields }) =>
      runTool('create_campaign_draft', async () =>
        client.createCampaign(await resolveWorkspace(workspace_id), fields),
      ),
  );

  server.registerTool(
    'update_campaign_draft',
    {
      title: 'Update campaign draft',
      description:
        "Changes a campaign draft and returns the updated campaign, whose version is one higher. Pass only the fields to change (at least one); the others stay as they are. `version` must be the campaign's current version, as last returned by get_campaign, list_campaigns, create_campaign_draft or update_campaign_draft. If a person changed the campaign since you read it, the update is refused with version_mismatch and nothing is overwritten: then call get_campaign again, reapply your change to its current content and retry with the new version. Only drafts can change: a scheduled or sent campaign is refused with campaign_not_draft (create a new draft instead).",
      inputSchema: updateDraftInput,
      outputSchema: campaignSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ workspace_id, campaign_id, version, ...fields }) =>
      runTool('update_campaign_draft', async () => {
        if (CAMPAIGN_CONTENT_FIELDS.every((field) => fields[field] === undefined)) {
          throw new ServiceError(
            'invalid_request',
            'Nothing to change: no field was given.',
            `Pass at least one of ${CONTENT_FIELD_LIST}.`,
          );
        }
        return client.updateCampaign(await resolveWorkspace(workspace_id), campaign_id, version, fields);
      }),
  );

  server.registerResource(
    'brand',
    BRAND_RESOURCE_URI,
    {
      title: 'Brand context',
      description:
        'The brand context (voice, colors, fonts, social links, knowledge, assets, skills, preferences) of the default workspace, as JSON.',
      mimeType: 'application/json',
    },
    async (uri) => {
      try {
        const context = await client.getBrandContext(await resolveWorkspace(undefined));
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(context) }] };
      } catch (error) {
        // Resource reads have no error result: the protocol error carries the same explanation.
        throw new Error(describeError(error));
      }
    },
  );

  server.registerPrompt(
    'draft_on_brand_email',
    {
      title: 'Draft an on-brand email',
      description:
        "Drafts an email campaign in the brand's voice and look (subject, preheader, HTML and text bodies) from the workspace's brand context, and saves it as a draft with create_campaign_draft.",
      argsSchema: promptArgs,
    },
    async ({ topic, audience, workspace_id }): Promise<GetPromptResult> => {
      let workspaceId: string;
      let context: BrandContext;
      try {
        workspaceId = await resolveWorkspace(workspace_id);
        context = await client.getBrandContext(workspaceId);
      } catch (error) {
        throw new Error(describeError(error));
      }
      return {
        description: `On-brand email for ${context.name} about ${topic}`,
        messages: [{ role: 'user', content: { type: 'text', text: emailPrompt(context, topic, audience) } }],
      };
    },
  );

  return server;
}

/** The prompt's one message: the task, the rules that make it on-brand, and the brand context itself. */
function emailPrompt(context: BrandContext, topic: string, audience: string | undefined): string {
  return [
    `Draft a marketing email for the brand "${context.name}" about: ${topic}`,
    audience === undefined || audience === '' ? '' : `Audience: ${audience}`,
    '',
    'Follow the brand context at the end of this message (JSON from the Brand Context service):',
    '- Write in the brand voice ("voice"). Use the language in preferences.language if set, and end with preferences.sign_off if set.',
    '- Use only facts from "description" and "knowledge"; do not invent prices, dates, offers or claims. Respect every knowledge entry of kind "guideline".',
    '- Apply the instructions of any relevant entry in "skills" (for example for subject lines).',
    '- Write: a subject (about 60 characters at most), a preheader (about 100 characters, complementing the subject), body_html and body_text.',
    '- body_html: a complete, email-safe HTML document: a single column of at most 600px, inline styles only, the brand colors ("colors": text, background, primary for buttons and links), the heading and body fonts with their fallbacks, the primary logo from "assets" (kind "logo") with its alt text if there is one, and sufficient contrast.',
    '- body_text: the same email as plain text, links written out.',
    '',
    `Then save it by calling the create_campaign_draft tool with workspace_id "${context.workspace_id}", a short internal name, and the subject, preheader, body_html and body_text. Finally show the user the subject, the preheader, the text body and the id of the saved draft.`,
    '',
    'Brand context:',
    '```json',
    JSON.stringify(context),
    '```',
  ]
    .filter((line, index, lines) => !(line === '' && lines[index - 1] === ''))
    .join('\n');
}
