import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import type { TestBackend, TestDatabase } from '#test/support/databases.js';

/**
 * Runs the BUILT command-line interface (`node dist/cli/main.js`, what the `brand-context` bin points at)
 * in child processes: `npm test` builds it first (pretest); run `npm run build` before `npx vitest`.
 */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** Matches a brand read key anywhere in a text. */
export const BRAND_KEY_IN_TEXT = /brk_[0-9A-Za-z]{36}/g;
export const BRAND_KEY = /^brk_[0-9A-Za-z]{36}$/;

const CONFIG_VARIABLES = ['DATABASE_URL', 'PORT', 'HOST', 'LOG_LEVEL', 'BRAND_CONTEXT_KEY_SIGNING_SECRET'];

export interface CliOptions {
  /** DATABASE_URL for the child; left unset when undefined (the CLI then uses ./data/brand-context.db). */
  databaseUrl?: string;
  /** Extra variables (PORT, LOG_LEVEL…). */
  env?: Record<string, string>;
  /** Written to the child's standard input, which is then closed. */
  input?: string;
  cwd?: string;
  timeoutMs?: number;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** `performance.now()` when the process exited. */
  exitedAt: number;
}

/** The test runner's environment without the service's own settings, plus the given ones. */
function childEnv(options: CliOptions): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !CONFIG_VARIABLES.includes(name)),
  );
  return {
    ...inherited,
    ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
    ...options.env,
  };
}

const children = new Set<ChildProcessWithoutNullStreams>();

function spawnCli(args: string[], options: CliOptions): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: childEnv(options),
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  // The child may exit before reading its input; that is its business, not a test failure.
  child.stdin.on('error', () => undefined);
  return child;
}

/** Kills (SIGKILL) every child process still running and waits until they are gone. For afterEach/afterAll. */
export async function killAllChildren(): Promise<void> {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            resolve();
            return;
          }
          child.once('exit', () => {
            resolve();
          });
          child.kill('SIGKILL');
        }),
    ),
  );
  children.clear();
}

/** Runs `brand-context ARGS…` to completion (killed and failed after `timeoutMs`). */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const child = spawnCli(args, options);
  let stdout = '';
  let stderr = '';
  let exitedAt = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `brand-context ${args.join(' ')} ran longer than ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, timeoutMs);
    child.once('exit', () => {
      exitedAt = performance.now();
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, exitedAt });
    });
  });
}

/** Runs the CLI, expects exit code 0 and parses its standard output as JSON. */
export async function runCliJson<T>(args: string[], options: CliOptions = {}): Promise<T> {
  const result = await runCli(args, options);
  if (result.code !== 0) {
    throw new Error(
      `brand-context ${args.join(' ')} exited ${String(result.code)}\nstderr: ${result.stderr}`,
    );
  }
  return JSON.parse(result.stdout) as T;
}

/** `value` once a beforeAll has set it; `what` names it in the error of a test that runs before that. */
export function setUp<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is used before its beforeAll ran`);
  return value;
}

export interface CliWorkspace {
  readonly database: TestDatabase;
  /** The workspace's id. */
  readonly id: string;
  /** Runs the CLI on the database with `env`, which replaces the suite's. */
  readonly cli: (args: string[], env?: Record<string, string>) => Promise<CliResult>;
  /** Runs the CLI on the database with the suite's env, expects exit code 0 and parses its output as JSON. */
  readonly cliJson: <T>(args: string[]) => Promise<T>;
}

/**
 * For a describe block: a fresh database of `backend` with one workspace, made by `workspace create --name
 * NAME` before its tests; after them every child is killed and the database dropped.
 */
export function useCliWorkspace(
  backend: TestBackend,
  name: string,
  env: Record<string, string> = {},
): CliWorkspace {
  let database: TestDatabase | undefined;
  let id: string | undefined;

  const ready = <T>(value: T | undefined) => setUp(value, 'the CLI workspace');
  const workspace: CliWorkspace = {
    get database() {
      return ready(database);
    },
    get id() {
      return ready(id);
    },
    cli: (args, only = env) => runCli(args, { databaseUrl: workspace.database.url, env: only }),
    cliJson: <T>(args: string[]) => runCliJson<T>(args, { databaseUrl: workspace.database.url, env }),
  };

  beforeAll(async () => {
    database = await backend.create();
    ({ id } = await workspace.cliJson<{ id: string }>(['workspace', 'create', '--name', name, '--json']));
  });

  afterAll(async () => {
    await killAllChildren();
    await database?.drop();
  });

  return workspace;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A long-running `brand-context serve` child with its output captured. */
export class ServerProcess {
  stdout = '';
  stderr = '';
  /** Set once the server logged `Server listening at …`. */
  port = 0;
  readonly exited: Promise<Exit>;
  private readonly waiters = new Set<() => void>();

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      this.notify();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      this.notify();
    });
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        this.notify();
        resolve({ code, signal });
      });
    });
  }

  /** Starts `brand-context serve …` on a free port of 127.0.0.1 and waits until it listens. */
  static async start(args: string[], options: CliOptions = {}): Promise<ServerProcess> {
    const child = spawnCli(['serve', ...args], {
      ...options,
      env: { PORT: '0', HOST: '127.0.0.1', ...options.env },
    });
    child.stdin.end();
    const server = new ServerProcess(child);
    const [, port] = await server.waitForStdout(/"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/);
    server.port = Number(port);
    // The startup code after listen() (banner, signal handlers) runs without yielding: once a request is
    // answered it has finished, and a SIGTERM is handled gracefully rather than killing the process.
    const health = await fetch(`${server.baseUrl}/healthz`);
    if (health.status !== 200)
      throw new Error(`GET /healthz answered ${health.status}\n${server.describe()}`);
    return server;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** stdout's pino JSON log lines (human output such as the demo banner excluded). */
  logLines(): string[] {
    return this.stdout.split('\n').filter((line) => line.startsWith('{'));
  }

  private notify(): void {
    for (const waiter of this.waiters) waiter();
  }

  /** Resolves with the first match of `pattern` in stdout, once it appears; fails if the process exits first. */
  waitForStdout(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.stdout);
        if (match) {
          done();
          resolve(match);
        } else if (!this.running) {
          done();
          reject(new Error(`the server exited before printing ${String(pattern)}\n${this.describe()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(`the server did not print ${String(pattern)} within ${timeoutMs} ms\n${this.describe()}`),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Sends `signal` and waits for the process to exit (SIGKILL after `timeoutMs`, which fails). */
  stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 12_000): Promise<Exit> {
    if (this.running) this.child.kill(signal);
    return this.waitForExit(timeoutMs);
  }

  /** Waits for the process to exit by itself (SIGKILL after `timeoutMs`, which fails). */
  async waitForExit(timeoutMs = 12_000): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`the server did not exit within ${timeoutMs} ms\n${this.describe()}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  describe(): string {
    return `stdout:\n${this.stdout}\nstderr:\n${this.stderr}`;
  }
}

export interface BrandRead {
  status: number;
  body: Record<string, unknown>;
}

/** The read operation, as a client calls it. */
export async function readBrand(baseUrl: string, key: string, workspaceId: string): Promise<BrandRead> {
  const response = await fetch(`${baseUrl}/functions/v1/brand-agent`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'context', workspace_id: workspaceId }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Calls `probe` until `done` holds for its value (no fixed sleep: `intervalMs` between calls) and returns
 * the value with the `performance.now()` at which it was seen; fails after `timeoutMs`.
 */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 5000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<{ value: T; at: number }> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    const at = performance.now();
    if (done(value)) return { value, at };
    if (at > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Every brand read key that appears in `text`. */
export function keysIn(text: string): string[] {
  return text.match(BRAND_KEY_IN_TEXT) ?? [];
}
