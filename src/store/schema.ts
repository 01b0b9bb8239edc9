import type { AccountTokenColumns } from './repositories/account-tokens.js';
import type { AuditEventColumns } from './repositories/audit.js';
import type {
  AssetColumns,
  BrandDraftColumns,
  BrandProfileColumns,
  BrandVersionColumns,
  KnowledgeEntryColumns,
  SkillColumns,
} from './repositories/brand.js';
import type { CampaignColumns } from './repositories/campaigns.js';
import type {
  DeliveryAttemptColumns,
  DeliveryColumns,
  WebhookBackoffColumns,
  WebhookEventColumns,
} from './repositories/deliveries.js';
import type {
  EmailEventColumns,
  EmailIdempotencyKeyColumns,
  EmailMessageColumns,
  EmailRecipientColumns,
  EmailSenderColumns,
  EmailSuppressionColumns,
} from './repositories/email.js';
import type { KeyColumns, KeyNoticeColumns } from './repositories/keys.js';
import type {
  OAuthClientColumns,
  OAuthCodeColumns,
  OAuthGrantColumns,
  OAuthTokenColumns,
} from './repositories/oauth.js';
import type { SettingColumns } from './repositories/settings.js';
import type { AccessTokenColumns, SignedOutSessionColumns } from './repositories/tokens.js';
import type { UserColumns } from './repositories/users.js';
import type { WebhookColumns } from './repositories/webhooks.js';
import type { MembershipColumns, WorkspaceColumns } from './repositories/workspaces.js';

/**
 * Row types of the tables, as Kysely sees them; each repository declares the columns of its tables. Timestamps
 * are ISO-8601 UTC strings on both backends (`text` in SQLite, `timestamptz` in PostgreSQL, parsed back to
 * ISO strings); JSON columns are strings (`text` / `jsonb`) decoded by their repository.
 */
export type Database = {
  workspaces: WorkspaceColumns;
  users: UserColumns;
  memberships: MembershipColumns;
  brand_profiles: BrandProfileColumns;
  knowledge_entries: KnowledgeEntryColumns;
  assets: AssetColumns;
  skills: SkillColumns;
  brand_versions: BrandVersionColumns;
  brand_drafts: BrandDraftColumns;
  settings: SettingColumns;
  access_tokens: AccessTokenColumns;
  audit_events: AuditEventColumns;
  campaigns: CampaignColumns;
  signed_out_sessions: SignedOutSessionColumns;
  webhooks: WebhookColumns;
  webhook_events: WebhookEventColumns;
  deliveries: DeliveryColumns;
  delivery_attempts: DeliveryAttemptColumns;
  webhook_backoffs: WebhookBackoffColumns;
  keys: KeyColumns;
  key_notices: KeyNoticeColumns;
  account_tokens: AccountTokenColumns;
  email_messages: EmailMessageColumns;
  email_recipients: EmailRecipientColumns;
  email_events: EmailEventColumns;
  email_senders: EmailSenderColumns;
  email_suppressions: EmailSuppressionColumns;
  email_idempotency_keys: EmailIdempotencyKeyColumns;
  oauth_clients: OAuthClientColumns;
  oauth_grants: OAuthGrantColumns;
  oauth_codes: OAuthCodeColumns;
  oauth_tokens: OAuthTokenColumns;
};
