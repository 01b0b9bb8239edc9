import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Role } from '../../src/core/roles.js';
import { OPERATOR } from '../../src/services/audit.js';
import { createWorkspace } from '../../src/services/workspaces.js';
import { snapshotTables } from '../support/databases.js';
import { addUser, type TestUser } from '../support/users.js';
import { call, type CallOptions, type Fixture, outcome } from './campaigns.fixtures.js';

/** A member as GET …/members lists it. */
export interface Member {
  user_id: string;
  email: string;
  role: Role;
  created_at: string;
}

export const TEMPORARY = 'temporary password for the members suite';

let counter = 0;
/** An email no account has yet. */
export const newEmail = (): string => `temp${String(++counter)}@members.example`;

export const membersUrl = (workspaceId: string) => `/api/v1/workspaces/${workspaceId}/members`;
export const memberUrl = (workspaceId: string, userId: string) => `${membersUrl(workspaceId)}/${userId}`;

/** The member API of one workspace, as one caller sees it. */
export function membersApi(f: Fixture, credential: string, workspaceId = f.workspaceId) {
  return {
    list: () => call(f, credential, 'GET', membersUrl(workspaceId)),
    add: (body: unknown, options: CallOptions = {}) =>
      call(f, credential, 'POST', membersUrl(workspaceId), { body, ...options }),
    remove: (userId: string) => call(f, credential, 'DELETE', memberUrl(workspaceId, userId)),
  };
}

/** The workspace's members as `credential` (by default the fixture's owner) lists them. */
export async function membersOf(f: Fixture, workspaceId = f.workspaceId, credential = f.owner.token) {
  const response = await membersApi(f, credential, workspaceId).list();
  if (response.statusCode !== 200) throw new Error(`could not list the members: ${response.body}`);
  return response.json<{ members: Member[] }>().members;
}

/** `userId`'s role in the workspace, or undefined once they are no member. */
export async function roleOf(f: Fixture, userId: string, workspaceId = f.workspaceId, credential?: string) {
  const members = await membersOf(f, workspaceId, credential);
  return members.find((member) => member.user_id === userId)?.role;
}

/** A workspace of its own whose only owner is a new account, for the rules about the last owner. */
export async function ownedWorkspace(f: Fixture): Promise<{ workspaceId: string; owner: TestUser }> {
  const { id: workspaceId } = await createWorkspace(f.deps, OPERATOR, { name: 'Solo Co' });
  return { workspaceId, owner: await addUser(f, { workspaceId, role: 'owner' }) };
}

/** Sends `request`, expects `expected` (`status code`), and checks that no table changed. */
export async function refused(
  f: Fixture,
  request: () => Promise<LightMyRequestResponse>,
  expected: string,
): Promise<LightMyRequestResponse> {
  const before = await snapshotTables(f.database.config);
  const response = await request();
  expect(outcome(response)).toBe(expected);
  expect(await snapshotTables(f.database.config)).toEqual(before);
  return response;
}

export function signIn(f: Fixture, email: string, password: string): Promise<LightMyRequestResponse> {
  return call(f, undefined, 'POST', '/auth/v1/token', { body: { email, password } });
}
