import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, type ExpectStatic, it } from 'vitest';
import { killAllChildren, runCli } from './cli-process.js';

/** No stack frames, no `Error:` dumps: what an operator sees is the message. */
function expectOneLine(expect: ExpectStatic, stderr: string): void {
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(/^error: /);
  expect(stderr).not.toMatch(/\bat .+:\d+:\d+/);
}

// Every test runs its own processes against its own (broken) configuration: they run concurrently.
describe.concurrent('brand-context errors', () => {
  afterAll(async () => {
    await killAllChildren();
  });

  it('reports an unreachable PostgreSQL database in one line, naming PostgreSQL, with exit code 1', async ({
    expect,
  }) => {
    const result = await runCli(['workspace', 'list'], { databaseUrl: 'postgres://postgres@127.0.0.1:1/x' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectOneLine(expect, result.stderr);
    expect(result.stderr).toMatch(/PostgreSQL at 127\.0\.0\.1:1\/x/);
    expect(result.stderr).toContain('ECONNREFUSED');
  });

  it('never prints the password of an unreachable PostgreSQL URL', async ({ expect }) => {
    const result = await runCli(['keys', 'list', '--workspace', 'ws_x'], {
      databaseUrl: 'postgres://postgres:s3cr3t-pw@127.0.0.1:1/x',
    });
    expect(result.code).toBe(1);
    expectOneLine(expect, result.stderr);
    expect(result.stderr).not.toContain('s3cr3t-pw');
  });

  it('refuses `serve` on an unreachable database with exit code 1 instead of listening', async ({
    expect,
  }) => {
    const result = await runCli(['serve'], {
      databaseUrl: 'postgres://postgres@127.0.0.1:1/x',
      env: { PORT: '0' },
    });
    expect(result.code).toBe(1);
    expectOneLine(expect, result.stderr);
    expect(result.stderr).toContain('PostgreSQL');
    expect(result.stdout).not.toContain('Server listening');
  });

  it('reports an unsupported DATABASE_URL scheme as a one-line configuration error, exit code 1', async ({
    expect,
  }) => {
    const result = await runCli(['workspace', 'list'], { databaseUrl: 'mysql://x' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: DATABASE_URL must start with postgres://, postgresql:// or sqlite:\n');
  });

  it('reports a bad PORT for serve as a one-line configuration error, exit code 1', async ({ expect }) => {
    const result = await runCli(['serve'], { databaseUrl: 'sqlite::memory:', env: { PORT: 'eighty' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: PORT must be 0-65535, got "eighty"\n');
  });

  it('reports an SQLite path that cannot be created in one line, exit code 1, without hanging', async ({
    expect,
  }) => {
    const result = await runCli(['workspace', 'create', '--name', 'X'], {
      databaseUrl: 'sqlite:/proc/nope/x.db',
      timeoutMs: 10_000,
    });
    expect(result.code).toBe(1);
    expectOneLine(expect, result.stderr);
    expect(result.stderr).toMatch(/^error: cannot open SQLite database at \/proc\/nope\/x\.db: /);
  });

  it('reports an SQLite path under a regular file in one line, exit code 1', async ({ expect }) => {
    const result = await runCli(['workspace', 'create', '--name', 'X'], {
      databaseUrl: 'sqlite:/etc/hostname/x.db',
    });
    expect(result.code).toBe(1);
    expectOneLine(expect, result.stderr);
    expect(result.stderr).toContain('SQLite database at /etc/hostname/x.db');
  });

  it('exits 2 on an unknown command, with the usage hint', async ({ expect }) => {
    const result = await runCli(['bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: unknown command 'bogus'");
    expect(result.stderr).toContain('--help');
  });

  it('exits 2 on an unknown option', async ({ expect }) => {
    const result = await runCli(['workspace', 'list', '--colour']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--colour'");
  });

  it('exits 0 for --help, printing every command', async ({ expect }) => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['serve', 'seed', 'workspace', 'brand', 'keys'])
      expect(result.stdout).toContain(command);
  });

  it('writes errors as one JSON object on stderr with --json', async ({ expect }) => {
    const [config, database] = await Promise.all([
      runCli(['workspace', 'list', '--json'], { databaseUrl: 'mysql://x' }),
      runCli(['seed', '--json'], { databaseUrl: 'postgres://postgres@127.0.0.1:1/x' }),
    ]);
    for (const result of [config, database]) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(JSON.parse(config.stderr)).toEqual({
      error: { code: 'error', detail: 'DATABASE_URL must start with postgres://, postgresql:// or sqlite:' },
    });
    expect(JSON.parse(database.stderr)).toEqual({
      error: {
        code: 'error',
        detail: expect.stringMatching(/^cannot use PostgreSQL at 127\.0\.0\.1:1\/x: /) as string,
      },
    });
  });

  it('says there is no database, and creates none, when a read-only command runs where none exists', async ({
    expect,
  }) => {
    const dir = await mkdtemp(join(tmpdir(), 'brand-context-nodb-'));
    try {
      const path = join(dir, 'nowhere', 'brand-context.db');
      for (const args of [
        ['workspace', 'list'],
        ['keys', 'list', '--workspace', 'ws_x'],
        ['api-keys', 'revoke', '--workspace', 'ws_x', 'ak_x'],
        ['brand', 'export', '--workspace', 'ws_x'],
      ]) {
        const result = await runCli(args, { databaseUrl: `sqlite:${path}` });
        expect(result.code, args.join(' ')).toBe(1);
        expect(result.stdout).toBe('');
        expectOneLine(expect, result.stderr);
        expect(result.stderr).toContain(`there is no database at ${path}`);
        expect(existsSync(path)).toBe(false);
      }
      const created = await runCli(['workspace', 'create', '--name', 'First'], {
        databaseUrl: `sqlite:${path}`,
      });
      expect(created.code).toBe(0);
      expect(existsSync(path)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
