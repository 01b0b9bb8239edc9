import { readFileSync } from 'node:fs';
import {
  type CallToolResult,
  type GetPromptResult,
  McpServer,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { brandViewFields, checkBrandView } from '../contract/brand-views.js';
import {
  CAMPAIGN_CONTENT_FIELDS,
  CAMPAIGN_STATUSES,
  type CampaignContentField,
} from '../contract/campaigns.js';
import { BRAND_SECTIONS, type BrandSection, type KnowledgeEntry } from '../core/brand-context.js';
import { searchKnowledge } from '../core/knowledge-search.js';
import type { Permission } from '../core/roles.js';
import type { McpConfig } from './config.js';
import {
  campaignListOutput,
  campaignOutput,
  inputSchema,
  mcpCampaignPageSchema,
  mcpCampaignSchema,
} from './schemas.js';
import {
  type BrandContextClient,
  type Credential,
  type CredentialVariable,
  ServiceError,
} from './service-client.js';

/** The whole brand as Markdown; `${BRAND_RESOURCE_URI}/<section>` is one section of it. */
export const BRAND_RESOURCE_URI = 'brand-context://brand';

/** What the tools, resources and prompt need, each a permission of src/core/roles.ts. */
export const MCP_PERMISSIONS = [
  'brand.read',
  'campaigns.read',
  'campaigns.write',
] as const satisfies readonly Permission[];
export type McpPermission = (typeof MCP_PERMISSIONS)[number];

export interface McpServerDeps {
  client: BrandContextClient;
  config: Pick<McpConfig, 'workspaceId'>;
  /**
   * What the caller's credential may do: only the tools, resources and prompt these cover are registered, so
   * a caller is never shown one it cannot use (docs/mcp.md "Remote MCP"). Every one by default (stdio).
   */
  permissions?: ReadonlySet<McpPermission>;
  /**
   * Where the server runs, for the advice its own errors give: on stdio the MCP client's configuration holds
   * the credential and the default workspace; over HTTP (/mcp) the credential's workspace is the default.
   */
  transport?: 'stdio' | 'http';
  /** One line for the operator (stderr on stdio); never given a secret. */
  log?: (line: string) => void;
  /**
   * How the stdio server learns of a new brand version, to notify subscribed clients (docs/mcp.md "Brand
   * versions and notifications"): how often it asks the service, in ms, and whether it asks only while a client
   * subscribes (2025 revisions: `resources/subscribe`) or while connected (2026-07-28: the connection serves
   * `subscriptions/listen` itself, and delivers only what a listener asked for). Ignored over HTTP.
   */
  watch?: { intervalMs: number; while: 'subscribed' | 'connected' };
}

/** How often the stdio server asks for the brand's version while a client subscribes, by default. */
export const DEFAULT_WATCH_MS = 30_000;

/** The server's instructions: each sentence only when the caller has the tools it names. */
function instructions(allows: (...needed: McpPermission[]) => boolean): string {
  return [
    "Brand Context serves a workspace's brand (voice, colors, fonts, social links, knowledge, logos and assets, skills, preferences) and its email campaign drafts.",
    allows('brand.read')
      ? 'Call get_brand_context before writing or designing anything for the brand, and follow it; search_brand_knowledge answers a specific question from its knowledge.'
      : '',
    allows('campaigns.write')
      ? 'Save emails you draft with create_campaign_draft; change a draft with update_campaign_draft, passing the version you last read.'
      : '',
    "Without workspace_id, a tool uses the configured default workspace, or the user's only one; when the user has several, the error lists their ids.",
    'Nothing here sends an email: a person reviews, schedules and sends drafts in the app.',
  ]
    .filter((sentence) => sentence !== '')
    .join(' ');
}

// No length limits here: the service checks ids, and each limit would cost tokens in every tool listing.
const workspaceIdArg = z.string().optional().describe('ws_…; omit it for the default workspace');
const campaignIdArg = z.string().min(1).describe('cmp_…');
/** What a model should know to write each field; `name` is told apart, since only a new draft needs it. */
const draftFields = {
  subject: z.string().optional().describe('One line, about 60 characters at most'),
  preheader: z
    .string()
    .optional()
    .describe('Inbox preview text after the subject: one line, about 100 characters'),
  body_html: z
    .string()
    .optional()
    .describe('Complete email-safe HTML: inline styles, one column of at most 600px'),
  body_text: z.string().optional().describe('Plain-text version of the same email'),
} satisfies Record<Exclude<CampaignContentField, 'name'>, z.ZodType>;

/** The content fields as a model reads a list of them: "a, b or c". */
const CONTENT_FIELD_LIST = `${CAMPAIGN_CONTENT_FIELDS.slice(0, -1).join(', ')} or ${CAMPAIGN_CONTENT_FIELDS.slice(-1).join('')}`;

/** The read operation's own options (src/contract/brand-views.ts), so the tool and the service cannot drift. */
const getBrandContextInput = z
  .strictObject({
    workspace_id: workspaceIdArg,
    ...brandViewFields,
    format: brandViewFields.format.describe('markdown (the default), json, or dtcg (design tokens)'),
    // Worded as search_brand_knowledge's: every token of a listing counts (docs/mcp.md "MCP": the tool budget).
    knowledge_kinds: brandViewFields.knowledge_kinds.describe('Only entries of these kinds'),
    knowledge_tags: brandViewFields.knowledge_tags.describe('Only entries with one of these tags'),
    // The service checks the bounds (1 to 2^31): each would cost tokens in every tool listing too.
    version: z.number().int().optional().describe('A past brand version; omit for the latest'),
  })
  .superRefine(checkBrandView);

/** The content is the service's to bound (src/contract/brand-check.ts): limits here would cost listing tokens. */
const checkBrandInput = z.strictObject({
  workspace_id: workspaceIdArg,
  content: z
    .strictObject({
      subject: z.string().optional(),
      text: z.string().optional(),
      html: z.string().optional(),
    })
    .describe('subject, text and/or html'),
  version: z.number().int().optional().describe('A past brand version; omit for the latest'),
});

const DEFAULT_SEARCH_LIMIT = 5;
const searchKnowledgeInput = z.strictObject({
  workspace_id: workspaceIdArg,
  query: z.string().trim().min(1).max(500).describe('What you want to know, in a few words'),
  tags: brandViewFields.knowledge_tags.describe('Only entries with one of these tags'),
  kinds: brandViewFields.knowledge_kinds.describe('Only entries of these kinds'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(20)
    .optional()
    .describe(`At most this many entries (default ${String(DEFAULT_SEARCH_LIMIT)})`),
});

const listCampaignsInput = z.strictObject({
  workspace_id: workspaceIdArg,
  status: z.enum(CAMPAIGN_STATUSES).optional().describe('Only campaigns with this status'),
  limit: z.number().int().min(1).max(100).optional().describe('Page size (default 20)'),
  cursor: z.string().min(1).optional().describe('next_cursor of the previous page'),
});

const getCampaignInput = z.strictObject({ workspace_id: workspaceIdArg, campaign_id: campaignIdArg });

const nameArg = z.string().min(1).max(200);
const createDraftInput = z.strictObject({
  workspace_id: workspaceIdArg,
  name: nameArg.describe('Internal name, e.g. "Spring launch newsletter"'),
  ...draftFields,
});

const updateDraftInput = z.strictObject({
  workspace_id: workspaceIdArg,
  campaign_id: campaignIdArg,
  version: z.number().int().min(1).describe("The campaign's version you last read"),
  name: nameArg.optional().describe('New internal name'),
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

// Every hint on every tool: clients that ask before a call (ChatGPT, Claude.ai) read them, absent ones as the worst case.
const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

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
  version_not_found:
    'Call get_brand_context without version to read the latest brand, or ask the user which version they mean.',
};
/** For a 401: the credential the refused call sent, by the variable that holds it. */
function credentialHint(variable: CredentialVariable | undefined): string {
  const which = variable === undefined ? 'BRAND_CONTEXT_ACCESS_TOKEN or BRAND_READ_KEY' : variable;
  return `Retrying will not help: tell the user that the credential of the Brand Context MCP server (${which} in the MCP client configuration) needs to be replaced.`;
}

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
  const hint =
    MODEL_HINTS[error.code] ??
    (error.extra.status === 401 ? credentialHint(error.extra.credential) : undefined);
  if (hint !== undefined) lines.push(`Next step: ${hint}`);
  if (error.extra.requestId !== undefined) lines.push(`Request id: ${error.extra.requestId}`);
  return lines.join('\n');
}

/** The package's version, read once: /mcp builds a server for every request. */
const SERVER_VERSION = ((): string => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

/**
 * The MCP server: seven tools, the default workspace's brand as Markdown resources (whole and per section),
 * and a prompt that drafts an on-brand email, each only where `permissions` allow it. Every handler is a
 * call to the service through `client`: over HTTP on stdio (src/mcp/service-client.ts), in the service's
 * own process on /mcp (src/mcp/in-process-client.ts).
 */
export function createBrandContextMcpServer({
  client,
  config,
  permissions = new Set(MCP_PERMISSIONS),
  transport = 'stdio',
  log = () => undefined,
  watch = { intervalMs: DEFAULT_WATCH_MS, while: 'subscribed' },
}: McpServerDeps): McpServer {
  const allows = (...needed: McpPermission[]) => needed.every((permission) => permissions.has(permission));
  const stdio = transport === 'stdio';
  // Only stdio can notify: /mcp is stateless, with no stream to send a notification on (docs/mcp.md "Remote MCP").
  const subscribable = stdio && allows('brand.read');
  const server = new McpServer(
    { name: 'brand-context', version: SERVER_VERSION },
    {
      instructions: instructions(allows),
      ...(subscribable ? { capabilities: { resources: { subscribe: true } } } : {}),
    },
  );

  /**
   * The argument, else the configured default, else the access token's user's only workspace. A resource
   * takes no arguments, so when it needs a workspace chosen only the configuration can choose it.
   */
  async function resolveWorkspace(
    requested: string | undefined,
    chooser: 'argument' | 'configuration' = 'argument',
  ): Promise<string> {
    // Models often send "" for an optional argument they mean to leave out.
    if (requested !== undefined && requested !== '') return requested;
    if (config.workspaceId !== undefined) return config.workspaceId;
    const workspaces = await client.listWorkspaces();
    const [only] = workspaces;
    if (only !== undefined && workspaces.length === 1) return only.id;
    if (only === undefined) {
      throw new ServiceError(
        'no_workspace',
        `The account of ${stdio ? 'BRAND_CONTEXT_ACCESS_TOKEN' : 'this access token'} is not a member of any workspace.`,
        'Ask the user to have a workspace owner or admin add their account as a member, or to create a workspace.',
      );
    }
    const listed = workspaces.map((w) => `${w.id} (${JSON.stringify(w.name)}, ${w.role})`).join(', ');
    throw new ServiceError(
      'workspace_required',
      `The user belongs to ${String(workspaces.length)} workspaces and no default workspace is configured: ${listed}.`,
      chooser === 'argument'
        ? `Call the tool again with workspace_id set to one of these ids (ask the user which brand they mean if unclear).${stdio ? ' A default can be set with BRAND_CONTEXT_WORKSPACE_ID in the MCP server configuration.' : ''}`
        : stdio
          ? 'Resources take no workspace_id: ask the user to set BRAND_CONTEXT_WORKSPACE_ID in the MCP client configuration to one of these ids, or call get_brand_context with workspace_id instead.'
          : 'Resources take no workspace_id: call get_brand_context with workspace_id instead.',
    );
  }

  /**
   * A tool's answer: text as it is, or an object as structured content with the same JSON as text; then,
   * when the credential used expires soon, one line saying so (a block of its own, so JSON stays JSON).
   */
  async function runTool(
    tool: string,
    credential: Credential,
    work: () => Promise<string | object>,
  ): Promise<CallToolResult> {
    let result: CallToolResult;
    try {
      const data = await work();
      result =
        typeof data === 'string'
          ? { content: [{ type: 'text', text: data }] }
          : { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
    } catch (error) {
      // The code and request id let an operator find the service's log line; the detail stays with the model.
      const { code, requestId } =
        error instanceof ServiceError
          ? { code: error.code, requestId: error.extra.requestId }
          : { code: 'internal_error', requestId: undefined };
      log(`${tool} failed: ${code}${requestId === undefined ? '' : ` (request ${requestId})`}`);
      result = { content: [{ type: 'text', text: describeError(error) }], isError: true };
    }
    const notice = client.expiryNotice(credential);
    if (notice !== undefined) result.content.push({ type: 'text', text: notice });
    return result;
  }

  /** The default workspace's brand as Markdown, for a resource. */
  async function defaultBrandMarkdown(sections?: BrandSection[]): Promise<string> {
    try {
      return await client.readBrand(await resolveWorkspace(undefined, 'configuration'), {
        format: 'markdown',
        sections,
      });
    } catch (error) {
      // Resource reads and prompts have no error result: the protocol error carries the same explanation.
      throw new Error(describeError(error));
    }
  }

  if (allows('brand.read')) {
    server.registerTool(
      'get_brand_context',
      {
        title: 'Get brand context',
        description:
          "The brand's voice, colors, fonts, social links, knowledge, assets, skills, preferences and rules. Call it before writing, designing or reviewing anything for the brand, and follow it; use only its facts.",
        inputSchema: inputSchema(getBrandContextInput),
        annotations: READ_ONLY,
      },
      ({ workspace_id, format = 'markdown', ...options }) =>
        runTool('get_brand_context', 'brand', async () =>
          client.readBrand(await resolveWorkspace(workspace_id), { format, ...options }),
        ),
    );

    server.registerTool(
      'search_brand_knowledge',
      {
        title: 'Search brand knowledge',
        description:
          "Finds the brand's knowledge entries (facts, guidelines, references) about a question, best first: for a specific question (a product, a policy, a style rule) rather than all knowledge.",
        inputSchema: inputSchema(searchKnowledgeInput),
        annotations: READ_ONLY,
      },
      ({ workspace_id, query, tags, kinds, limit = DEFAULT_SEARCH_LIMIT }) =>
        runTool('search_brand_knowledge', 'brand', async () => {
          const knowledge = await client.readKnowledge(await resolveWorkspace(workspace_id), {
            knowledge_kinds: kinds,
            knowledge_tags: tags,
          });
          return knowledgeAnswer(query, { kinds, tags }, searchKnowledge(knowledge, query, limit));
        }),
    );
  }

  if (allows('brand.read')) {
    server.registerTool(
      'check_brand_compliance',
      {
        title: 'Check brand compliance',
        description:
          "Checks copy against the brand's rules (words, emoji, colors, fonts). Call it on what you wrote before saving; fix each error finding, check again.",
        inputSchema: inputSchema(checkBrandInput),
        annotations: READ_ONLY,
      },
      ({ workspace_id, content, version }) =>
        runTool('check_brand_compliance', 'brand', async () =>
          client.checkBrand(await resolveWorkspace(workspace_id), content, version),
        ),
    );
  }

  if (allows('campaigns.read')) {
    server.registerTool(
      'list_campaigns',
      {
        title: 'List campaigns',
        description:
          "The workspace's email campaigns, newest first, without bodies: to find a campaign's id or see what was written. Pass a non-null next_cursor as cursor for the next page.",
        inputSchema: inputSchema(listCampaignsInput),
        outputSchema: campaignListOutput,
        annotations: READ_ONLY,
      },
      ({ workspace_id, status, limit, cursor }) =>
        runTool('list_campaigns', 'access', async () =>
          mcpCampaignPageSchema.parse(
            await client.listCampaigns(await resolveWorkspace(workspace_id), { status, limit, cursor }),
          ),
        ),
    );

    server.registerTool(
      'get_campaign',
      {
        title: 'Get campaign',
        description:
          'One campaign with its bodies, status and current version. Call it before changing a campaign.',
        inputSchema: inputSchema(getCampaignInput),
        outputSchema: campaignOutput,
        annotations: READ_ONLY,
      },
      ({ workspace_id, campaign_id }) =>
        runTool('get_campaign', 'access', async () =>
          mcpCampaignSchema.parse(
            await client.getCampaign(await resolveWorkspace(workspace_id), campaign_id),
          ),
        ),
    );
  }

  if (allows('campaigns.write')) {
    server.registerTool(
      'create_campaign_draft',
      {
        title: 'Create campaign draft',
        description:
          'Saves a new email draft (version 1) and returns it. Call it once per email you wrote for the brand, after get_brand_context. Nothing is sent: a person reviews drafts in the app.',
        inputSchema: inputSchema(createDraftInput),
        outputSchema: campaignOutput,
        annotations: {
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
      },
      ({ workspace_id, ...fields }) =>
        runTool('create_campaign_draft', 'access', async () =>
          mcpCampaignSchema.parse(await client.createCampaign(await resolveWorkspace(workspace_id), fields)),
        ),
    );

    server.registerTool(
      'update_campaign_draft',
      {
        title: 'Update campaign draft',
        description:
          'Changes a draft: pass only the fields to change and the version you last read. On version_mismatch someone edited it: call get_campaign again, reapply your change, retry with the new version. Only drafts change (campaign_not_draft): create a new draft instead.',
        inputSchema: inputSchema(updateDraftInput),
        outputSchema: campaignOutput,
        annotations: {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: false,
        },
      },
      ({ workspace_id, campaign_id, version, ...fields }) =>
        runTool('update_campaign_draft', 'access', async () => {
          if (CAMPAIGN_CONTENT_FIELDS.every((field) => fields[field] === undefined)) {
            throw new ServiceError(
              'invalid_request',
              'Nothing to change: no field was given.',
              `Pass at least one of ${CONTENT_FIELD_LIST}.`,
            );
          }
          return mcpCampaignSchema.parse(
            await client.updateCampaign(await resolveWorkspace(workspace_id), campaign_id, version, fields),
          );
        }),
    );
  }

  if (allows('brand.read')) {
    server.registerResource(
      'brand',
      BRAND_RESOURCE_URI,
      {
        title: 'Brand context',
        description: 'The brand of the default workspace, every section, as Markdown.',
        mimeType: 'text/markdown',
      },
      async (uri) => ({
        contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await defaultBrandMarkdown() }],
      }),
    );
    for (const section of BRAND_SECTIONS) {
      server.registerResource(
        `brand-${section}`,
        `${BRAND_RESOURCE_URI}/${section}`,
        {
          title: `Brand ${section}`,
          description: `The ${section} section of the default workspace's brand, as Markdown.`,
          mimeType: 'text/markdown',
        },
        async (uri) => ({
          contents: [
            { uri: uri.href, mimeType: 'text/markdown', text: await defaultBrandMarkdown([section]) },
          ],
        }),
      );
    }
  }

  if (subscribable) {
    watchBrandVersions(server, watch, {
      version: async () => client.brandVersion(await resolveWorkspace(undefined, 'configuration')),
      log,
    });
  }

  // It reads the brand, and has the model save its draft.
  if (allows('brand.read', 'campaigns.write')) {
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
        let brand: string;
        try {
          workspaceId = await resolveWorkspace(workspace_id);
          brand = await client.readBrand(workspaceId, { format: 'markdown' });
        } catch (error) {
          throw new Error(describeError(error));
        }
        // The Markdown's H1 is always the brand's name (src/core/brand-markdown.ts).
        const name = /^# (.+)$/m.exec(brand)?.[1] ?? 'the brand';
        return {
          description: `On-brand email for ${name} about ${topic}`,
          messages: [
            {
              role: 'user',
              content: { type: 'text', text: emailPrompt({ name, workspaceId, brand, topic, audience }) },
            },
          ],
        };
      },
    );
  }

  return server;
}

/** The brand resources' URIs: the whole brand's, then each section's. */
const BRAND_RESOURCE_URIS = [
  BRAND_RESOURCE_URI,
  ...BRAND_SECTIONS.map((section) => `${BRAND_RESOURCE_URI}/${section}`),
];

/**
 * Notifies the client when the default workspace's brand has a new version (docs/mcp.md "Brand versions and notifications"): the
 * stdio server is a client of the service, with no change feed of its own, so it asks for the version every
 * `intervalMs`. On 2025 revisions it answers `resources/subscribe` and `resources/unsubscribe`, asks only
 * while a resource is subscribed and notifies only those; on 2026-07-28 the connection delivers each
 * notification to the listeners that asked for its resource, so every brand resource is notified.
 */
function watchBrandVersions(
  server: McpServer,
  watch: NonNullable<McpServerDeps['watch']>,
  source: { version: () => Promise<number>; log: (line: string) => void },
): void {
  const subscribed = new Set<string>();
  let known: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failing = false;
  let closed = false;

  /** Learns the version; when it moved since last time, notifies. A failure is logged once until it passes. */
  const check = async () => {
    let version: number;
    try {
      version = await source.version();
    } catch (error) {
      if (!failing)
        source.log(
          `watching the brand for new versions failed: ${describeError(error).split('\n')[0] ?? ''}`,
        );
      failing = true;
      return;
    }
    failing = false;
    const moved = known !== undefined && version !== known;
    known = version;
    if (!moved || closed) return;
    const uris = watch.while === 'connected' ? BRAND_RESOURCE_URIS : [...subscribed];
    for (const uri of uris) await server.server.sendResourceUpdated({ uri });
  };
  /** Asks every interval; with `now`, at once too, so that a version published right after is noticed. */
  const start = async (now: boolean) => {
    if (timer !== undefined || closed) return;
    timer = setInterval(() => void check(), watch.intervalMs);
    timer.unref();
    if (now) await check();
  };
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
    known = undefined;
  };
  const previousOnclose = server.server.onclose;
  server.server.onclose = () => {
    closed = true;
    stop();
    previousOnclose?.();
  };

  if (watch.while === 'connected') {
    // Not at once: the service is not contacted when a client merely launches the server (src/mcp/stdio.ts).
    void start(false);
    return;
  }
  const assertBrandResource = (uri: string) => {
    if (!BRAND_RESOURCE_URIS.includes(uri)) throw new ResourceNotFoundError(uri, `No resource ${uri}`);
  };
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    assertBrandResource(request.params.uri);
    subscribed.add(request.params.uri);
    await start(true);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', (request) => {
    subscribed.delete(request.params.uri);
    if (subscribed.size === 0) stop();
    return {};
  });
}

/**
 * search_brand_knowledge's answer: a Markdown bullet per entry, or what to do when none matched, naming
 * the filters that narrowed the search, since dropping them may find what the query asks about.
 */
function knowledgeAnswer(
  query: string,
  filters: { kinds: readonly string[] | undefined; tags: readonly string[] | undefined },
  found: readonly KnowledgeEntry[],
): string {
  if (found.length === 0) {
    const applied = Object.entries(filters).filter(
      (filter): filter is [string, readonly string[]] => filter[1] !== undefined,
    );
    if (applied.length === 0)
      return `No knowledge entry matches "${query}". Call get_brand_context with sections ["knowledge"] to read them all.`;
    const names = applied.map(([name]) => name).join(' and ');
    const among = applied.map(([name, values]) => `${name} ${JSON.stringify(values)}`).join(' and ');
    return `No knowledge entry matches "${query}" among those with ${among}. Search again without ${names}, or call get_brand_context with sections ["knowledge"] to read them all.`;
  }
  return found
    .map((entry) => {
      const tags = entry.tags.length > 0 ? `; tags: ${entry.tags.join(', ')}` : '';
      const content = entry.content.trim().split(/\r?\n/).join('\n  ');
      return `- **${entry.title}** (${entry.kind}${tags})${content === '' ? '' : `: ${content}`}`;
    })
    .join('\n');
}

interface EmailPromptInput {
  name: string;
  workspaceId: string;
  brand: string;
  topic: string;
  audience: string | undefined;
}

/**
 * The prompt's one message: the task, the rules that make it on-brand in terms of the Markdown's headings
 * (src/core/brand-markdown.ts), and the brand itself.
 */
function emailPrompt({ name, workspaceId, brand, topic, audience }: EmailPromptInput): string {
  return [
    `Draft a marketing email for the brand "${name}" about: ${topic}`,
    audience === undefined || audience === '' ? '' : `Audience: ${audience}`,
    '',
    'Follow the brand context at the end of this message (Markdown from the Brand Context service; a section it leaves out is empty):',
    '- Write in the voice of "## Voice". Use the language under "## Preferences" if set, and end with its sign_off if set.',
    '- Use only facts from the paragraph under the title and from "## Knowledge"; never invent prices, dates, offers or claims. Where a skill asks for something the brand context does not give (a price, a date), write a clear placeholder such as [price] instead, and tell the user.',
    '- Follow every entry under "### Guidelines" and the instructions of any relevant skill under "## Skills" (for example for subject lines): the brand\'s skills and guidelines win over the generic lengths below.',
    '- Write: a subject (about 60 characters at most), a preheader (about 100 characters, complementing the subject), body_html and body_text.',
    '- body_html: a complete, email-safe HTML document: a single column of at most 600px, inline styles only, the colors of the "## Colors" table (text, background, primary for buttons and links), the heading and body fonts of "## Fonts" with their fallbacks, the primary logo from "## Assets" with its alt text if there is one, and sufficient contrast.',
    '- body_text: the same email as plain text, links written out.',
    '',
    `Then save it by calling the create_campaign_draft tool with workspace_id "${workspaceId}", a short internal name, and the subject, preheader, body_html and body_text. Finally show the user the subject, the preheader, the text body, the id of the saved draft and any placeholder left to fill in.`,
    '',
    'Brand context:',
    '',
    brand.trimEnd(),
  ]
    .filter((line, index, lines) => !(line === '' && lines[index - 1] === ''))
    .join('\n');
}
