import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRAND_KEY, keysIn, killAllChildren, REPO_ROOT, runCliJson, ServerProcess } from './cli-process.js';

const exec = promisify(execFile);

/** The multi-line curl command of the demo banner: from `curl ` to its `-d '{…}'` line. */
const CURL_COMMAND = /^curl -sS -X POST \S+ \\\n(?: {2}-H '[^'\n]*' \\\n)+ {2}-d '\{[^'\n]*\}'$/m;

describe('Quick start', () => {
  let dir: string;
  /** Like a fresh clone: no DATABASE_URL, so the default ./data/brand-context.db under the working directory. */
  const inClone = () => ({ cwd: dir, env: { PORT: '0' } });
  let first: ServerProcess;
  let key = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'brand-context-quick-start-'));
  });

  afterAll(async () => {
    await killAllChildren();
    await rm(dir, { recursive: true, force: true });
  });

  it('`npm start` builds, then runs `serve --demo`', async () => {
    const { scripts } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.start).toBe('node dist/cli/main.js serve --demo');
    expect(scripts.prestart).toMatch(/npm run build/);
  });

  it('From a fresh clone, `npm ci && npm start` prints a curl command that returns 200', async () => {
    first = await ServerProcess.start(['--demo'], inClone());
    const [curl] = await first.waitForStdout(CURL_COMMAND);
    const workspaceId = /^ {2}Demo workspace {3}(ws_\w+)$/m.exec(first.stdout)?.[1];
    key = /^ {2}Brand read key {3}(\S+)$/m.exec(first.stdout)?.[1] ?? '';
    expect(key).toMatch(BRAND_KEY);
    expect(curl).toContain(`http://127.0.0.1:${first.port}/functions/v1/brand-agent`);

    // The command exactly as printed, as a user pastes it into a shell; -w appends the status line.
    const { stdout } = await exec('/bin/sh', ['-c', `${curl} -w '\\n%{http_code}'`], { timeout: 10_000 });
    const newline = stdout.lastIndexOf('\n');
    expect(stdout.slice(newline + 1)).toBe('200');
    const brand = JSON.parse(stdout.slice(0, newline)) as {
      workspace_id: string;
      name: string;
      knowledge: unknown[];
    };
    expect(brand.workspace_id).toBe(workspaceId);
    expect(brand.name).toBe('Acme Coffee');
    expect(brand.knowledge).toHaveLength(20);
  });

  it('keeps the demo key out of its log lines, showing it only in the banner', () => {
    // Successful reads are logged at debug, so at the default level the log holds only start-up lines here;
    // src/http/routes/brand-agent.security.test.ts checks the access lines themselves at debug.
    expect(keysIn(first.logLines().join('\n'))).toEqual([]);
    expect(first.stderr).toBe('');
    // In the banner: on its own line and in the curl command, nowhere else.
    expect(keysIn(first.stdout)).toEqual([key, key]);
  });

  it('serves the console, the API reference and its stylesheet, and says where it is installed', async () => {
    // The build bundles the service (build.ts): what it reads from its own files, or from a package's, is
    // checked on the built service itself.
    // Every body is read to its end: a response left unread stays in flight, and the server's graceful
    // shutdown in the next test would wait for it until its grace period ran out.
    const get = async (path: string) => {
      const response = await fetch(`${first.baseUrl}${path}`);
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        body: await response.text(),
      };
    };
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="root">');
    const docs = await get('/docs');
    expect(docs.status).toBe(200);
    expect(docs.type).toMatch(/^text\/html/);
    expect(docs.body).toContain('id="operation-readBrandContext"');
    expect((await get('/docs/reference.css')).type).toBe('text/css; charset=utf-8');

    const [, email, password] = /^ {2}Owner login {6}(\S+) \/ (\S+)$/m.exec(first.stdout) ?? [];
    const signIn = await fetch(`${first.baseUrl}/auth/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(signIn.status).toBe(200);
    expect(((await signIn.json()) as { install_dir: string | null }).install_dir).toBe(resolve(REPO_ROOT));
  });

  it('started a second time on the same database, creates no second workspace and prints no key', async () => {
    expect(await first.stop(), first.describe()).toEqual({ code: 0, signal: null });

    const second = await ServerProcess.start(['--demo'], inClone());
    await second.waitForStdout(/no demo was created/);
    expect(keysIn(second.stdout + second.stderr)).toEqual([]);
    expect(second.stdout).not.toContain('Owner login');
    expect(second.stdout).toMatch(/keys create --workspace ws_\w+ --name/);
    // The demo owner's password was shown once, by the first start: how to set a new one.
    expect(second.stdout).toContain(
      'printf %s "$PASSWORD" | npx brand-context users set-password --email owner@acme-coffee.example',
    );
    expect(await second.stop(), second.describe()).toEqual({ code: 0, signal: null });

    const workspaces = await runCliJson<{ name: string }[]>(['workspace', 'list', '--json'], inClone());
    expect(workspaces.map((workspace) => workspace.name)).toEqual(['Acme Coffee']);
  });
});
