/** Response shapes of the service's API (README "Management API", src/http/schemas.ts). */

export type Role = 'owner' | 'admin' | 'member';
type CredentialStatus = 'active' | 'expired' | 'revoked';

export interface User {
  id: string;
  email: string;
}

export interface Session {
  user: User;
  csrf_token: string;
  expires_in: number;
  /** Where the service is installed on the machine that runs it (for MCP client configurations). */
  install_dir: string | null;
}

export interface Workspace {
  id: string;
  name: string;
  created_at: string;
  role: Role;
}

/** A brand read key or a workspace API key, as listings show it: never the secret. */
export interface WorkspaceKey {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  last4: string;
  status: CredentialStatus;
  created_by: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** The create response: the only time the key itself is sent. */
export interface CreatedKey {
  id: string;
  name: string;
  key: string;
  prefix: string;
  created_at: string;
  expires_at: string;
}

export interface Member {
  user_id: string;
  email: string;
  role: Role;
  created_at: string;
}

export interface AddedMember extends Member {
  temporary_password_set: boolean;
}

export type AuditActor =
  | { type: 'user'; id: string | null; email: string | null }
  | { type: 'api_key'; id: string | null }
  | { type: 'operator' };

export interface AuditEvent {
  id: string;
  action: string;
  actor: AuditActor;
  target: { type: string; id: string | null };
  details: Record<string, string | number | boolean | null>;
  created_at: string;
}

export interface AccessToken {
  id: string;
  name: string;
  status: CredentialStatus;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

type CampaignStatus = 'draft' | 'scheduled' | 'sent';

export interface CampaignSummary {
  id: string;
  workspace_id: string;
  name: string;
  subject: string;
  preheader: string;
  status: CampaignStatus;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface Campaign extends CampaignSummary {
  body_html: string;
  body_text: string;
}

export type CampaignContent = Pick<Campaign, 'name' | 'subject' | 'preheader' | 'body_html' | 'body_text'>;

export const KNOWLEDGE_KINDS = ['fact', 'guideline', 'reference'] as const;
export const ASSET_KINDS = ['logo', 'icon', 'image', 'other'] as const;
export const FONT_SOURCES = ['google', 'adobe', 'system', 'custom'] as const;
export const COLOR_ROLES = ['primary', 'secondary', 'accent', 'background', 'text'] as const;
export type ColorRole = (typeof COLOR_ROLES)[number];

interface PaletteEntry {
  name: string;
  hex: string;
  role: string | null;
}

export type Colors = Record<ColorRole, string | null> & { palette: PaletteEntry[] };

export interface Font {
  family: string;
  weights: number[];
  fallback: string[];
  source: (typeof FONT_SOURCES)[number];
  url: string | null;
}

export interface KnowledgeEntry {
  id: string;
  kind: (typeof KNOWLEDGE_KINDS)[number];
  title: string;
  content: string;
  tags: string[];
  updated_at: string;
}

export interface Asset {
  id: string;
  kind: (typeof ASSET_KINDS)[number];
  name: string;
  url: string;
  mime_type: string | null;
  width: number | null;
  height: number | null;
  bytes: number | null;
  variant: string | null;
  background: string | null;
  alt: string;
}

export interface Skill {
  id: string;
  name: string;
  description: string;
  instructions: string;
}

export type PreferenceValue = string | number | boolean | null | string[];

/** The brand context object (README "The brand context object"), as GET …/brand and the read operation return it. */
export interface BrandContext {
  workspace_id: string;
  name: string;
  description: string;
  voice: string;
  colors: Colors;
  fonts: { heading: Font | null; body: Font | null };
  social: Record<string, string>;
  knowledge: KnowledgeEntry[];
  assets: Asset[];
  skills: Skill[];
  preferences: Record<string, PreferenceValue>;
  updated_at: string;
  version: number;
}
