import type { Generated } from 'kysely';

/**
 * Row types of the tables, as Kysely sees them. Timestamps are ISO-8601 UTC strings on both backends
 * (`text` in SQLite, `timestamptz` in PostgreSQL, parsed back to ISO strings); JSON columns are strings
 * (`text` / `jsonb`) decoded in one place, the store.
 */
export interface Database {
  workspaces: { id: string; name: string; created_at: string };
  users: { id: string; email: string; password_hash: string | null; created_at: string };
  memberships: { workspace_id: string; user_id: string; role: string; created_at: string };
  brand_profiles: {
    workspace_id: string;
    description: string;
    voice: string;
    colors: string;
    fonts: string;
    social: string;
    preferences: string;
    version: number;
    updated_at: string;
  };
  knowledge_entries: {
    workspace_id: string;
    id: string;
    position: number;
    kind: string;
    title: string;
    content: string;
    tags: string;
    updated_at: string;
  };
  assets: {
    workspace_id: string;
    id: string;
    position: number;
    kind: string;
    name: string;
    url: string;
    mime_type: string | null;
    width: number | null;
    height: number | null;
    bytes: number | null;
    variant: string | null;
    background: string | null;
    alt: string;
  };
  skills: {
    workspace_id: string;
    id: string;
    position: number;
    name: string;
    description: string;
    instructions: string;
  };
  settings: { name: string; value: string };
  access_tokens: {
    id: string;
    user_id: string;
    name: string;
    created_at: string;
    expires_at: string;
    revoked_at: string | null;
    last_used_at: string | null;
  };
  audit_events: {
    seq: Generated<number>;
    id: string;
    workspace_id: string | null;
    actor_id: string | null;
    actor_email: string | null;
    action: string;
    target_type: string;
    target_id: string | null;
    details: string;
    created_at: string;
    actor_type: Generated<string>;
  };
  campaigns: {
    id: string;
    workspace_id: string;
    name: string;
    subject: string;
    preheader: string;
    body_html: string;
    body_text: string;
    status: string;
    version: number;
    created_at: string;
    updated_at: string;
  };
  signed_out_sessions: { id: string; expires_at: string };
  brand_keys: KeyColumns;
  api_keys: KeyColumns;
}

/** Brand read keys and workspace API keys: two tables of the same shape. */
interface KeyColumns {
  id: string;
  workspace_id: string;
  name: string;
  key_hash: string;
  prefix: string;
  last4: string;
  created_by: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}
