import { z } from 'zod';
import { type BrandCheckResult, brandCheckContentSchema } from '../contract/brand-check.js';
import { type BrandReadOptions, brandVersionField } from '../contract/brand-views.js';
import {
  CAMPAIGN_STATUSES,
  type Campaign,
  type CampaignPage,
  campaignChangesSchema,
  newCampaignSchema,
} from '../contract/campaigns.js';
import type { Workspace } from '../contract/workspaces.js';
import type { BrandCheckContent } from '../core/brand-check.js';
import { brandView } from '../core/brand-views.js';
import { campaignEtag } from '../core/campaigns.js';
import { AppError } from '../core/errors.js';
import { toFieldIssues } from '../core/inputs.js';
import { KEY_KINDS } from '../core/key-kinds.js';
import type { Permission } from '../core/roles.js';
import { redactKeys } from '../core/secret-keys.js';
import { listWorkspacesOf, toWorkspaceView } from '../services/accounts/workspaces.js';
import type { Actor } from '../services/audit/audit.js';
import type { Credentials, Principal } from '../services/auth/credentials.js';
import type { ReadLimits } from '../services/brand/read-limits.js';
import { checkBrandContent } from '../services/brand/check.js';
import type { BrandReader } from '../services/brand/reader.js';
import {
  createCampaign,
  getCampaign,
  listCampaigns,
  updateCampaign,
} from '../services/campaigns/campaigns.js';
import type { Deps } from '../services/shared/deps.js';
import type { EventRepositories } from '../services/webhooks/events.js';
import {
  type BrandContextClient,
  type BrandKnowledge,
  type CampaignDraftFields,
  expiresSoon,
  expiryLine,
  type KnowledgeFilters,
  type ListCampaignsQuery,
  ServiceError,
} from './service-client.js';
import { brandKnowledgeSchema } from './schemas.js';

/** What the in-process client reaches the service with: the app's own use cases and components. */
export interface InProcessServices {
  deps: Deps<'campaigns' | 'brand' | 'audit' | 'workspaces' | EventRepositories>;
  credentials: Pick<Credentials, 'authorize'>;
  reader: Pick<BrandReader, 'readWorkspace' | 'readVersion' | 'readContext'>;
  /** The read operation's budget per credential (RATE_LIMIT_READS): brand reads over /mcp spend it too. */
  readLimits: Pick<ReadLimits, 'take'> | undefined;
}

/** Who calls /mcp: the principal its credential resolved to, bounded by its OAuth grant when it has one. */
export interface McpCaller {
  principal: Principal;
  /** An OAuth access token's grant: its one workspace, and the permissions its scopes stand for. */
  grant?: { workspaceId: string; permissions: readonly Permission[] } | undefined;
}

/** The default page size of list_campaigns, as GET …/campaigns has it. */
const DEFAULT_PAGE_SIZE = 20;

/**
 * The MCP server's client inside the service (/mcp, docs/mcp.md "Remote MCP"): each call authorizes the
 * caller as the HTTP API does, then runs the same use case as its route, with no HTTP round trip. Refusals
 * become the ServiceErrors the tools already describe, with the service's code, detail and resolution.
 */
export class InProcessClient implements BrandContextClient {
  constructor(
    private readonly services: InProcessServices,
    private readonly caller: McpCaller,
  ) {}

  readBrand(workspaceId: string, options: BrandReadOptions): Promise<string> {
    return this.run(async () => {
      const { version, ...view } = options;
      // Checked as the read operation checks it: the service's own bounds, the same refusal.
      if (version !== undefined) validatedFields(pinnedVersionSchema, { version });
      await this.authorize(workspaceId, 'brand.read');
      await this.services.readLimits?.take(this.caller.principal);
      const { reader } = this.services;
      const served = await (version === undefined
        ? reader.readWorkspace(workspaceId, brandView(view))
        : reader.readVersion(workspaceId, version, brandView(view)));
      return served.body.toString('utf8');
    });
  }

  /** Nothing asks it over /mcp, which cannot notify (src/mcp/server.ts); answered as a read would. */
  brandVersion(workspaceId: string): Promise<number> {
    return this.run(async () => {
      await this.authorize(workspaceId, 'brand.read');
      return Number((await this.services.reader.readWorkspace(workspaceId)).version);
    });
  }

  /** As POST /functions/v1/brand-check answers: authorized and counted as a read, nothing stored. */
  checkBrand(workspaceId: string, content: BrandCheckContent, version?: number): Promise<BrandCheckResult> {
    return this.run(async () => {
      if (version !== undefined) validatedFields(pinnedVersionSchema, { version });
      const checked = validatedFields(brandCheckContentSchema, { ...content });
      await this.authorize(workspaceId, 'brand.read');
      await this.services.readLimits?.take(this.caller.principal);
      return checkBrandContent(this.services.reader, workspaceId, checked, version);
    });
  }

  async readKnowledge(workspaceId: string, filters: KnowledgeFilters): Promise<BrandKnowledge> {
    const json = await this.readBrand(workspaceId, { format: 'json', sections: ['knowledge'], ...filters });
    return brandKnowledgeSchema.parse(JSON.parse(json)).knowledge;
  }

  listWorkspaces(): Promise<Workspace[]> {
    return this.run(async () => {
      const { principal } = this.caller;
      // A key has no user: its own workspace is the default (src/mcp/http.ts), so this is not asked.
      if (principal.kind === 'key') return [];
      const memberships = await listWorkspacesOf(this.services.deps, principal.user.id);
      return memberships.map((w) => ({ ...toWorkspaceView(w), role: w.role }));
    });
  }

  listCampaigns(workspaceId: string, query: ListCampaignsQuery): Promise<CampaignPage> {
    return this.run(async () => {
      await this.authorize(workspaceId, 'campaigns.read');
      return listCampaigns(this.services.deps, workspaceId, {
        limit: query.limit ?? DEFAULT_PAGE_SIZE,
        cursor: query.cursor,
        status: CAMPAIGN_STATUSES.find((status) => status === query.status),
      });
    });
  }

  getCampaign(workspaceId: string, campaignId: string): Promise<Campaign> {
    return this.run(async () => {
      await this.authorize(workspaceId, 'campaigns.read');
      return getCampaign(this.services.deps, workspaceId, campaignId);
    });
  }

  createCampaign(workspaceId: string, fields: CampaignDraftFields): Promise<Campaign> {
    return this.run(async () => {
      await this.authorize(workspaceId, 'campaigns.write');
      const draft = validated(newCampaignSchema, fields);
      return createCampaign(this.services.deps, this.actor(), workspaceId, draft);
    });
  }

  updateCampaign(
    workspaceId: string,
    campaignId: string,
    version: number,
    fields: CampaignDraftFields,
  ): Promise<Campaign> {
    return this.run(async () => {
      await this.authorize(workspaceId, 'campaigns.write');
      const changes = validated(campaignChangesSchema, fields);
      const target = { workspaceId, id: campaignId, ifMatch: campaignEtag(version) };
      return updateCampaign(this.services.deps, this.actor(), target, changes);
    });
  }

  /**
   * A key or personal access token expiring within the notice period, in the words of the stdio server's
   * notice; an OAuth access token lives an hour and its client refreshes it unasked.
   */
  expiryNotice(): string | undefined {
    const { principal, grant } = this.caller;
    if (grant !== undefined) return undefined;
    const now = this.services.deps.clock.now();
    if (!expiresSoon(principal.expiresAt, now)) return undefined;
    if (principal.kind === 'key') {
      const { label } = KEY_KINDS[principal.keyKind];
      return expiryLine(
        label,
        'rotate it in Settings → Agent Access',
        principal.expiresAt,
        now,
        'MCP client',
      );
    }
    if (principal.kind !== 'personal_token') return undefined;
    return expiryLine(
      'personal access token',
      'create a new personal access token',
      principal.expiresAt,
      now,
      'MCP client',
    );
  }

  /**
   * As the HTTP API authorizes (src/services/auth/credentials.ts `authorize`), then within the OAuth grant:
   * its workspace only, and only what its scopes allow.
   */
  private async authorize(workspaceId: string, permission: Permission): Promise<void> {
    const { principal, grant } = this.caller;
    await this.services.credentials.authorize(principal, workspaceId, permission);
    if (grant === undefined) return;
    if (grant.workspaceId !== workspaceId)
      throw new AppError('workspace_forbidden', { reason: 'oauth_grant', workspaceId });
    if (!grant.permissions.includes(permission)) throw new AppError('insufficient_scope', { permission });
  }

  /** Who the audit log names: the key, or the user (an OAuth grant acts for its user). */
  private actor(): Actor {
    const { principal } = this.caller;
    if (principal.kind === 'key') return { kind: 'api_key', keyId: principal.id };
    return { kind: 'user', userId: principal.user.id, email: principal.user.email };
  }

  /**
   * The call, its refusals as ServiceErrors, redacted as the API's problems are (src/http/problem.ts): a
   * detail or field may echo input. Anything else is left to fail as it failed.
   */
  private async run<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      throw new ServiceError(error.code, redactKeys(error.detail), error.resolution, {
        status: error.status,
        fields:
          error.fields.length > 0
            ? error.fields.map((issue) => ({
                field: redactKeys(issue.field),
                message: redactKeys(issue.message),
              }))
            : undefined,
      });
    }
  }
}

/** The fields a tool was given, checked by the schema of the route that takes them, as that route would. */
function validated<S extends z.ZodType>(schema: S, fields: CampaignDraftFields): z.output<S> {
  return validatedFields(
    schema,
    Object.fromEntries(Object.entries<unknown>(fields).filter((entry) => entry[1] !== undefined)),
  );
}

function validatedFields<S extends z.ZodType>(schema: S, given: Record<string, unknown>): z.output<S> {
  const parsed = schema.safeParse(given);
  if (parsed.success) return parsed.data;
  throw new AppError('invalid_request', { reason: 'schema', fields: toFieldIssues(parsed.error.issues) });
}

/** The read operation's `version`, alone. */
const pinnedVersionSchema = z.strictObject(brandVersionField);
