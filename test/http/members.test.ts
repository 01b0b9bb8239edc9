import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit.js';
import { createWorkspace, findOrCreateUser } from '../../src/services/workspaces.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeEachBackend, snapshotTables, type TestDatabase } from '../support/databases.js';
import { addUser, bearer } from '../support/users.js';
import { problemOf } from './brand-agent.fixtures.js';

const TEMPORARY = 'temporary password for the members suite';

describeEachBackend(
  'Adding members with a temporary password (POST /api/v1/workspaces/{id}/members)',
  (backend) => {
    let database: TestDatabase;
    let testApp: TestApp;
    let workspaceId: string;
    let ownerToken: string;
    let adminToken: string;
    let memberToken: string;
    let counter = 0;
    const newEmail = () => `temp${String(++counter)}@members.example`;

    function addMember(token: string, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
      return testApp.app.inject({
        method: 'POST',
        url: `/api/v1/workspaces/${workspaceId}/members`,
        headers: bearer(token),
        payload: body,
      });
    }

    function signIn(email: string, password: string): Promise<LightMyRequestResponse> {
      return testApp.app.inject({ method: 'POST', url: '/auth/v1/token', payload: { email, password } });
    }

    async function auditEvents(): Promise<{ action: string; details: Record<string, unknown> }[]> {
      const response = await testApp.app.inject({
        method: 'GET',
        url: `/api/v1/workspaces/${workspaceId}/audit-log?limit=100`,
        headers: bearer(ownerToken),
      });
      expect(response.statusCode).toBe(200);
      return response.json<{ events: { action: string; details: Record<string, unknown> }[] }>().events;
    }

    beforeAll(async () => {
      database = await backend.create();
      testApp = await startTestApp(database);
      workspaceId = (await createWorkspace(testApp.deps, OPERATOR, { name: 'Members Co' })).id;
      ownerToken = (await addUser(testApp, { workspaceId, role: 'owner' })).token;
      adminToken = (await addUser(testApp, { workspaceId, role: 'admin' })).token;
      memberToken = (await addUser(testApp, { workspaceId, role: 'member' })).token;
    });
    afterAll(async () => {
      await testApp.close();
      await database.drop();
    });

    it('creates a new account with the temporary password, which then signs in; the answer and the audit log never hold it', async () => {
      const email = newEmail();
      const response = await addMember(ownerToken, { email, role: 'member', password: TEMPORARY });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({
        user_id: expect.stringMatching(/^usr_/) as string,
        email,
        role: 'member',
        created_at: new Date(testApp.clock.now()).toISOString(),
        temporary_password_set: true,
      });
      expect(response.body).not.toContain(TEMPORARY);

      const signedIn = await signIn(email, TEMPORARY);
      expect(signedIn.statusCode).toBe(200);

      const added = (await auditEvents()).find(
        (event) => event.action === 'member.added' && event.details.email === email,
      );
      expect(added?.details).toEqual({ email, role: 'member', temporary_password: true });
      expect(JSON.stringify(await snapshotTables(database.config))).not.toContain(TEMPORARY);
      expect(testApp.logs.join('\n')).not.toContain(TEMPORARY);
    });

    it('sets the temporary password of an existing account that has none yet (an admin adding a member)', async () => {
      const email = newEmail();
      // An account without a password, as an earlier "add member" without one leaves it.
      await findOrCreateUser(testApp.deps, email);
      const response = await addMember(adminToken, { email, role: 'member', password: TEMPORARY });
      expect(response.statusCode).toBe(201);
      expect(response.json<{ temporary_password_set: boolean }>().temporary_password_set).toBe(true);
      expect((await signIn(email, TEMPORARY)).statusCode).toBe(200);
    });

    it("never replaces an existing account's password: 409 account_has_password, and nothing changes", async () => {
      const email = newEmail();
      const own = 'the password this person chose themselves';
      await findOrCreateUser(testApp.deps, email, own);
      const before = await snapshotTables(database.config);

      const response = await addMember(ownerToken, { email, role: 'admin', password: TEMPORARY });
      expect(response.statusCode).toBe(409);
      const problem = problemOf(response);
      expect(problem.code).toBe('account_has_password');
      expect(problem.detail).toContain(email);
      expect(problem.resolution).toMatch(/without a temporary password/);
      expect(response.body).not.toContain(TEMPORARY);
      expect(await snapshotTables(database.config)).toEqual(before);
      expect((await signIn(email, own)).statusCode).toBe(200);
      expect((await signIn(email, TEMPORARY)).statusCode).toBe(401);

      // Without a password the same account is added, and keeps its own.
      const plain = await addMember(ownerToken, { email, role: 'admin' });
      expect(plain.statusCode).toBe(201);
      expect(plain.json<{ temporary_password_set: boolean }>().temporary_password_set).toBe(false);
      expect((await signIn(email, own)).statusCode).toBe(200);
    });

    it('refuses a temporary password shorter than 12 characters with 400 naming the field, and creates no account', async () => {
      const email = newEmail();
      const before = await snapshotTables(database.config);
      const response = await addMember(ownerToken, { email, role: 'member', password: 'short' });
      expect(response.statusCode).toBe(400);
      const problem = problemOf(response);
      expect(problem.code).toBe('invalid_request');
      expect(problem.errors).toEqual([{ field: 'password', message: 'must be at least 12 characters' }]);
      expect(await snapshotTables(database.config)).toEqual(before);
    });

    it('refuses a member (403 insufficient_role) before looking at the password, and changes nothing', async () => {
      const before = await snapshotTables(database.config);
      const response = await addMember(memberToken, {
        email: newEmail(),
        role: 'member',
        password: TEMPORARY,
      });
      expect(response.statusCode).toBe(403);
      expect(problemOf(response).code).toBe('insufficient_role');
      expect(await snapshotTables(database.config)).toEqual(before);
    });

    it('adds an account without a password as before when none is given', async () => {
      const email = newEmail();
      const response = await addMember(ownerToken, { email, role: 'member' });
      expect(response.statusCode).toBe(201);
      expect(response.json<{ temporary_password_set: boolean }>().temporary_password_set).toBe(false);
      expect((await signIn(email, TEMPORARY)).statusCode).toBe(401);
    });
  },
);
