/**
 * What every benchmark shares: child processes stopped on the way out (however the run ends), the service
 * started as `serve` runs it, one-off requests, the demo seed, scratch PostgreSQL databases, latency
 * percentiles and plain-text tables. `runBench` is each benchmark's entry point.
 */
import { execFile, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { z } from 'zod';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');
export const READY_TIMEOUT_MS = 20_000;
/**
 * autocannon's sampling interval for every run. A run stops at the first sample after its duration, so with
 * the default of 1 s a 0.5 s round lasted 1 s and a 0.3 s warm-up 1 s too (the figures were right, each run
 * reports its own duration, but a CI run spent a quarter of the benchmark's time past the rounds' ends).
 */
export const SAMPLE_INTERVAL_MS = 50;
const STOP_TIMEOUT_MS = 12_000;
/** The service's delivery worker, on as in production (docs/webhooks.md "Webhooks"). */
export const DELIVERY_WORKERS = 4;

const execFileAsync = promisify(execFile);

export class BenchError extends Error {
  override readonly name = 'BenchError';
}

// ----------------------------------------------------------------------------------------------- cleanup

/** Undo steps, run last-in first-out on the way out, whether the run succeeded, failed or was interrupted. */
export const cleanups: (() => Promise<void>)[] = [];

export async function runCleanups(): Promise<void> {
  for (let step = cleanups.pop(); step !== undefined; step = cleanups.pop()) {
    try {
      await step();
    } catch (error) {
      progress(`cleanup step failed: ${describe(error)}`);
    }
  }
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `promise`, or `fallback` after `ms`; the timer is cleared either way, so it never holds the process open. */
export async function withTimeout<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<F>((resolveTimeout) => {
    timer = setTimeout(() => {
      resolveTimeout(fallback);
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------- children

export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  /** Resolves once the process has exited (or failed to start). */
  exited: Promise<void>;
  running(): boolean;
  stop(): Promise<void>;
}

/** The children's environment: `node` with no inherited loader options (tsx's), so both run bare. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  return env;
}

export function spawnNode(name: string, args: string[], env: NodeJS.ProcessEnv, stdio: StdioOptions): Child {
  const child = spawn(process.execPath, args, { env, stdio });
  const exited = new Promise<void>((resolveExit) => {
    child.once('exit', () => {
      resolveExit();
    });
    child.once('error', () => {
      resolveExit();
    });
  });
  if (child.pid === undefined) throw new BenchError(`could not start ${name}`);
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (!running()) return;
    child.kill('SIGTERM');
    const stopped = await withTimeout(
      exited.then(() => true),
      STOP_TIMEOUT_MS,
      false,
    );
    if (!stopped) {
      progress(`${name} did not exit ${STOP_TIMEOUT_MS / 1000} s after SIGTERM; killing it`);
      child.kill('SIGKILL');
      await exited;
    }
  };
  const handle: Child = { name, process: child, pid: child.pid, exited, running, stop };
  cleanups.push(stop);
  return handle;
}

/** A port that was free a moment ago (listen on 0, read it, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        if (port === 0) reject(new BenchError('could not find a free port'));
        else resolvePort(port);
      });
    });
  });
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request on its own connection (no keep-alive pool left behind), returning the exact body bytes. */
export async function send(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    agent?: Agent;
    /** 2 s unless told; a sign-in (scrypt) on a busy machine may need more. */
    timeoutMs?: number;
  } = {},
): Promise<HttpResponse> {
  const timeoutMs = options.timeoutMs ?? 2000;
  return new Promise((resolveResponse, reject) => {
    const req = httpRequest(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      // A keep-alive agent where the caller polls one server fast; by default a connection of its own.
      agent: options.agent ?? false,
      timeout: timeoutMs,
    });
    req.once('timeout', () => {
      req.destroy(new BenchError(`${url} did not answer in ${timeoutMs / 1000} s`));
    });
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => {
        resolveResponse({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });
    req.end(options.body);
  });
}

export async function tail(path: string, lines = 15): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

export async function waitReady(
  baseUrl: string,
  service: Child,
  logs: { stdout: string; stderr: string },
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!service.running()) {
      throw new BenchError(
        `the service exited before it was ready (code ${service.process.exitCode ?? service.process.signalCode ?? '?'}):\n` +
          `${await tail(logs.stderr)}\n${await tail(logs.stdout)}`,
      );
    }
    try {
      const res = await send(`${baseUrl}/readyz`);
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await delay(100);
  }
  throw new BenchError(`the service was not ready within ${READY_TIMEOUT_MS / 1000} s; see ${logs.stdout}`);
}

export /**
 * `serve` as production runs it, on a free port, with its logs in `dir` (`name`.log): LOG_LEVEL pinned to
 * the default and the delivery worker on, then `env` on top.
 */
async function startService(
  dir: string,
  databaseUrl: string,
  env: Record<string, string> = {},
  name = 'service',
): Promise<Server & { logPath: string }> {
  const port = await freePort();
  const logs = { stdout: join(dir, `${name}.log`), stderr: join(dir, `${name}.stderr.log`) };
  const out = openSync(logs.stdout, 'w');
  const err = openSync(logs.stderr, 'w');
  let child: Child;
  try {
    // LOG_LEVEL is pinned to the default, so a stray setting in the caller's shell cannot silence the logs;
    // the delivery worker runs as `serve` runs it in production, so its cost is part of what is measured.
    const childEnvironment = childEnv({
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DELIVERY_WORKERS: String(DELIVERY_WORKERS),
      ...env,
    });
    child = spawnNode(name, [CLI, 'serve'], childEnvironment, ['ignore', out, err]);
  } finally {
    closeSync(out);
    closeSync(err);
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitReady(baseUrl, child, logs);
  return { child, baseUrl, logPath: logs.stdout };
}

export const seedSchema = z.object({
  workspace_id: z.string().min(1),
  brand_read_key: z.string().min(1),
  /** The demo owner's login, for benchmarks that use the management API. */
  owner: z.object({ email: z.string().min(1), password: z.string().min(1) }),
});
export type Seed = z.infer<typeof seedSchema>;

export async function seed(databaseUrl: string): Promise<Seed> {
  try {
    const { stdout } = await execFileAsync(process.execPath, [CLI, 'seed', '--json'], {
      env: childEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }),
      maxBuffer: 1024 * 1024,
    });
    const last = stdout.trim().split('\n').at(-1) ?? '';
    return seedSchema.parse(JSON.parse(last));
  } catch (error) {
    const stderr =
      typeof error === 'object' && error !== null && 'stderr' in error ? String(error.stderr) : '';
    throw new BenchError(`seed --json failed: ${describe(error)}${stderr ? `\n${stderr}` : ''}`);
  }
}

/** Every response time in ms, as the client measured it (autocannon's own histogram rounds to whole ms). */
export class Latencies {
  private values = new Float64Array(1 << 16);
  private count = 0;

  add(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = ms;
  }

  percentiles(...ps: number[]): number[] {
    const sorted = this.values.slice(0, this.count).sort();
    return ps.map((p) =>
      this.count === 0
        ? Number.NaN
        : (sorted[Math.max(0, Math.ceil((p / 100) * this.count) - 1)] ?? Number.NaN),
    );
  }
}

export interface Memory {
  rssMb: number;
  peakMb: number;
}

/** VmRSS and VmHWM (peak RSS) of a process from /proc; undefined where there is no /proc (not Linux). */
export async function memoryOf(pid: number): Promise<Memory | undefined> {
  let status: string;
  try {
    status = await readFile(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
    return match?.[1] === undefined ? Number.NaN : Number(match[1]) / 1024;
  };
  return { rssMb: field('VmRSS'), peakMb: field('VmHWM') };
}

export interface Server {
  child: Child;
  baseUrl: string;
}

/** A scratch database on the admin URL's server, dropped (WITH (FORCE)) when the run ends. */
export async function createScratchDatabase(adminUrl: string): Promise<string> {
  const name = `brand_context_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    throw new BenchError(`BENCH_DATABASE_URL: cannot create a scratch database: ${describe(error)}`);
  } finally {
    await admin.end().catch(() => undefined);
  }
  cleanups.push(async () => {
    const dropper = new pg.Client({ connectionString: adminUrl });
    await dropper.connect();
    try {
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await dropper.end();
    }
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A number from the environment variable `name`, `fallback` when unset; anything `valid` refuses stops the run. */
export function numberFromEnv(
  name: string,
  fallback: number,
  valid: (value: number) => boolean,
  expected: string,
): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || !valid(value))
    throw new BenchError(`${name} must be ${expected}, got "${raw}"`);
  return value;
}

export const fixed = (value: number, digits: number) =>
  Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
export const round = (value: number, digits: number) =>
  Number.isFinite(value) ? Number(value.toFixed(digits)) : null;

/** Columns padded to their widest cell: the first `textColumns` aligned left, the figures right. */
export function formatTable(headers: string[], rows: string[][], textColumns: number): string {
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i < textColumns ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Runs a benchmark's `main` (its exit code), stopping every child and removing every scratch thing on the way out. */
export async function runBench(main: () => Promise<number>): Promise<void> {
  const run = { interrupted: false };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      run.interrupted = true;
      progress(`${signal}: stopping the servers and cleaning up`);
      void runCleanups().finally(() => process.exit(130));
    });
  }

  try {
    process.exitCode = await main();
  } catch (error) {
    if (!run.interrupted) progress(`error: ${describe(error)}`);
    process.exitCode = 1;
  } finally {
    await runCleanups();
  }
}
