import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './0001_initial.js';
import * as accounts from './0002_accounts.js';
import * as campaigns from './0003_campaigns.js';
import * as signedOutSessions from './0004_signed_out_sessions.js';
import * as webhooks from './0005_webhooks.js';
import * as email from './0006_email.js';
import * as keyFillfactor from './0007_key_fillfactor.js';
import * as revokedKeys from './0008_revoked_keys.js';
import * as keySigningSecretOut from './0009_key_signing_secret_out.js';
import * as credentialCreators from './0010_credential_creators.js';
import * as fairDelivery from './0011_fair_delivery.js';
import * as oneKeysTable from './0012_one_keys_table.js';
import * as oauth from './0013_oauth.js';
import * as brandVersions from './0014_brand_versions.js';
import * as brandRules from './0015_brand_rules.js';

/** Migrations are bundled as modules (not read from a folder) so the built CLI finds them wherever it runs. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_accounts': accounts,
  '0003_campaigns': campaigns,
  '0004_signed_out_sessions': signedOutSessions,
  '0005_webhooks': webhooks,
  '0006_email': email,
  '0007_key_fillfactor': keyFillfactor,
  '0008_revoked_keys': revokedKeys,
  '0009_key_signing_secret_out': keySigningSecretOut,
  '0010_credential_creators': credentialCreators,
  '0011_fair_delivery': fairDelivery,
  '0012_one_keys_table': oneKeysTable,
  '0013_oauth': oauth,
  '0014_brand_versions': brandVersions,
  '0015_brand_rules': brandRules,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(MIGRATIONS),
};
