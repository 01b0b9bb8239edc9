import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { createPersonalToken } from '../../src/services/auth/tokens.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { listenOnLoopback, startTestApp, type TestApp } from '#test/support/app.js';
import { sqliteBackend, type TestDatabase } from '#test/support/databases.js';
import { addUser } from '#test/support/users.js';

const execFileAsync = promisify(execFile);

/**
 * The MCP project's conformance suite (@modelcontextprotocol/conformance) against /mcp. It needs Node 22, which
 * the tool folder tools/mcp-conformance brings as the npm package node@22 (`npm ci --prefix
 * tools/mcp-conformance`, as .ci/run does); without that folder installed, this suite says so and skips.
 */
const TOOL_DIR = join(import.meta.dirname, '..', '..', 'tools', 'mcp-conformance');
const NODE_22 = join(TOOL_DIR, 'node_modules', 'node', 'bin', 'node');
const CONFORMANCE = join(
  TOOL_DIR,
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);
const installed = existsSync(NODE_22) && existsSync(CONFORMANCE);
const SKIP_REASON =
  'the MCP conformance suite is not installed: run `npm ci --prefix tools/mcp-conformance` (CI does)';

/** The scenarios the issue names: a server's handshake, ping, its lists, and DNS-rebinding protection. */
const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'prompts-list',
  'dns-rebinding-protection',
];

/**
 * The suite sends no credential: it stands for an MCP client configured with a bearer header (as Cursor, VS Code
 * and scripts are, docs/connect-ai-client.md), so a loopback proxy adds the owner's personal access token to
 * every request and passes everything else (Host and Origin included) through untouched.
 */
function bearerProxy(target: number, token: string): Server {
  return createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      {
        host: '127.0.0.1',
        port: target,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
}

// Reported as the backends' suites are: the title says why it was skipped.
const TITLE = 'the MCP conformance suite against /mcp';
describe.skipIf(!installed)(installed ? TITLE : `${TITLE} — skipped: ${SKIP_REASON}`, () => {
  let database: TestDatabase;
  let testApp: TestApp;
  let proxy: Server;
  let url: string;

  beforeAll(async () => {
    // The proxy's address is the service's public one: the suite's own Origin must count as same-origin.
    proxy = createServer();
    await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
    const proxyPort = (proxy.address() as AddressInfo).port;
    proxy.close();
    const publicUrl = `http://localhost:${String(proxyPort)}`;
    database = await sqliteBackend.create();
    testApp = await startTestApp(database, { logLevel: 'info', email: { publicUrl } });
    const workspace = await createWorkspace(testApp.deps, OPERATOR, { name: 'Acme Coffee' });
    await replaceBrand(testApp.deps, OPERATOR, workspace.id, parseBrandDocument(DEMO_BRAND));
    const owner = await addUser(testApp, { workspaceId: workspace.id, role: 'owner' });
    const pat = await createPersonalToken(testApp.deps, owner.user, {
      name: 'conformance',
      expiresInDays: 1,
    });
    const appPort = await listenOnLoopback(testApp.app);
    proxy = bearerProxy(appPort, pat.token);
    await new Promise<void>((listening) => proxy.listen(proxyPort, '127.0.0.1', listening));
    url = `${publicUrl}/mcp`;
  });

  afterAll(async () => {
    await new Promise((closed) => proxy.close(closed));
    await testApp.close();
    await database.drop();
  });

  it.each(SCENARIOS)('passes the %s scenario', { timeout: 60_000 }, async (scenario) => {
    const run = await execFileAsync(NODE_22, [CONFORMANCE, 'server', '--url', url, '--scenario', scenario], {
      cwd: TOOL_DIR,
      timeout: 50_000,
    }).then(
      (done) => ({ code: 0, output: `${done.stdout}${done.stderr}` }),
      (failed: unknown) => {
        const {
          code = 1,
          stdout = '',
          stderr = '',
        } = failed as { code?: number; stdout?: string; stderr?: string };
        return { code, output: `${stdout}${stderr}` };
      },
    );
    expect(run.output).not.toMatch(/FAILURE|WARNING/);
    expect(run.code, run.output).toBe(0);
  });
});
