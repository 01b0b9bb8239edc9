import { randomBase62 } from '../../core/base62.js';
import { parseBrandDocument } from '../../core/brand-context.js';
import { createBrandKey } from '../keys/keys.js';
import { replaceBrand } from '../brand/brand.js';
import type { Deps } from '../shared/deps.js';
import { DEMO_BRAND } from './demo-brand.js';
import { createWorkspace, findOrCreateUser } from '../accounts/workspaces.js';
import { OPERATOR } from '../audit/audit.js';

export const DEMO_OWNER_EMAIL = 'owner@acme-coffee.example';

/** `seed --json` (docs/command-line.md "Command line"). The key and password are returned here once and stored only as hashes. */
export interface DemoSeed {
  workspace_id: string;
  brand_read_key: string;
  brand_read_key_id: string;
  owner: { email: string; password: string };
}

/**
 * A demo workspace with the complete Acme Coffee brand, a new owner account and one brand read key. Seeding
 * again makes another workspace with its own owner (owner+…@), so every seed's printed password works.
 */
export async function seedDemo(deps: Deps): Promise<DemoSeed> {
  const password = randomBase62(16);
  const taken = await deps.store.users.findByEmail(DEMO_OWNER_EMAIL);
  const email = taken
    ? DEMO_OWNER_EMAIL.replace('@', `+${randomBase62(6).toLowerCase()}@`)
    : DEMO_OWNER_EMAIL;
  const owner = await findOrCreateUser(deps, email, password);
  const workspace = await createWorkspace(deps, OPERATOR, { name: DEMO_BRAND.name, owner });
  await replaceBrand(deps, OPERATOR, workspace.id, parseBrandDocument(DEMO_BRAND));
  const key = await createBrandKey(deps, OPERATOR, {
    workspaceId: workspace.id,
    name: 'Demo key',
  });
  return {
    workspace_id: workspace.id,
    brand_read_key: key.key,
    brand_read_key_id: key.id,
    owner: { email: owner.email, password },
  };
}
