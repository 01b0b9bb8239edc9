import { isoAt } from '../../src/core/clock.js';
import type { Role } from '../../src/core/roles.js';
import { findOrCreateUser } from '../../src/services/accounts/workspaces.js';
import type { UserRecord } from '../../src/store/store.js';
import type { TestApp } from './app.js';
import { issueSession } from '../../src/services/auth/tokens.js';

let counter = 0;

export interface TestUser {
  user: UserRecord;
  /** A session token (user JWT) for `Authorization: Bearer …`. */
  token: string;
}

/**
 * A new account (without a password unless `password` is given) with a session token, optionally a member
 * of `workspaceId` with `role`. Emails are unique per call.
 */
export async function addUser(
  testApp: TestApp,
  options: { workspaceId?: string; role?: Role; email?: string; password?: string } = {},
): Promise<TestUser> {
  const email = options.email ?? `user${String(++counter)}-${String(Date.now())}@example.com`;
  const user = await findOrCreateUser(testApp.deps, email, options.password);
  if (options.workspaceId !== undefined) {
    await testApp.store.workspaces.addMember({
      workspaceId: options.workspaceId,
      userId: user.id,
      role: options.role ?? 'member',
      createdAt: isoAt(testApp.clock),
    });
  }
  const { access_token: token } = await issueSession(testApp.deps, user);
  return { user, token };
}

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}
