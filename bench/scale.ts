/**
 * `npm run bench` (after bench/brand-agent.ts): the service at scale, as docs/performance.md "Scale, measured" reports it.
 *
 * 1. Many keys, each backend (SQLite file; PostgreSQL with BENCH_DATABASE_URL): the demo workspace (`seed`)
 *    and then BENCH_SCALE_KEYS real brand read keys, inserted straight into `keys` in batches, each a
 *    valid key, signed and hashed as the service makes it (src/services/keys/keys.ts). The store is measured twice:
 *    first holding only the working set's keys (the small store), then holding all of them. On each, the read
 *    operation is driven with two working sets in the same run and with the same connections: 1,000 keys
 *    (always in the service's verified-key cache) and BENCH_SCALE_WORKING_SET keys, larger than that cache
 *    (10,000 keys, src/services/auth/credentials.ts) and cycled in order, so that the LRU cache misses on every
 *    request. The
 *    ratio of the two req/s (the median of back-to-back pairs') is the figure (target: within 10 %), and the
 *    service's RSS after each shows whether memory follows the cache bounds or the number of keys (small
 *    store vs all keys).
 * 2. Cold start: `serve` spawned on each store and timed to the read operation's first 200 with a key it has
 *    never seen, beside the time to its "Server listening" line and the CPU it had used by then (which the
 *    machine's load does not inflate). Each service's stop is timed too: it writes its pending
 *    `last_used_at` stamps, one per key used since the last flush.
 * 3. Three nodes on one PostgreSQL database (the full store; needs BENCH_DATABASE_URL) behind a round-robin
 *    proxy in this process (loopback only, part of the bench, not of the product), serving light read load
 *    through it: BENCH_SCALE_REVOCATIONS times, a key is created, read (200) on every node, revoked through
 *    one node's management API, and each node polled until it refuses the key; the delay of "refused by all
 *    three" is measured from the moment the DELETE was sent (target p99 <= 1 s). Then the three nodes are
 *    restarted with RATE_LIMIT_READS and REDIS_URL, and one new key reads through the proxy until refused:
 *    the 200s must be within 10 % of the budget (and, for contrast, without REDIS_URL each node keeps its own).
 *
 * Environment:
 *   BENCH_SCALE_KEYS          keys in the full store (default 1000000; CI uses 50000)
 *   BENCH_SCALE_WORKING_SET   keys of the large working set, above the 10,000-key cache (default 50000)
 *   BENCH_SCALE_DURATION      measured seconds per working set and store (default 8), run as 1-s segments
 *                             in alternating pairs (1,000 keys, large; large, 1,000 keys; …) after a 1 s
 *                             warm-up of each; the ratio is the median of the pairs' ratios
 *   BENCH_SCALE_CONNECTIONS   concurrent connections (default 10)
 *   BENCH_SCALE_COLD_STARTS   cold starts timed on each backend's full store (default 3; one on the small
 *                             store beside them); the median is the figure
 *   BENCH_SCALE_REVOCATIONS   revocations timed across three nodes (default 100)
 *   BENCH_SCALE_RATE_LIMIT    RATE_LIMIT_READS of the cross-node limit check (default 300/60s)
 *   BENCH_REDIS_URL           the Redis the three nodes share for it (default redis://127.0.0.1:6379; "off"
 *                             skips the check)
 *   BENCH_DATABASE_URL        postgres://… admin URL: also measure PostgreSQL and run the three-node part, in
 *                             a scratch database created (and dropped WITH (FORCE)) for this run
 * Floors (below one, exit 1; CI may set them looser than the targets, which are the defaults):
 *   BENCH_SCALE_MIN_RATIO              large / 1,000-key working set req/s on the full store (default 0.9)
 *   BENCH_SCALE_MAX_COLD_START_MS      median cold start (default 1000)
 *   BENCH_SCALE_MAX_REVOCATION_P99_MS  p99 of "refused by all three" (default 1000)
 *   BENCH_SCALE_LIMIT_TOLERANCE        how far the 200s may be from the budget, as a fraction (default 0.1)
 *   BENCH_SCALE_MAX_RSS_GROWTH         full store's RSS over the small store's, same load (default 1.25)
 */
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, createServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import type { Insertable } from 'kysely';
import pg from 'pg';
import { z } from 'zod';
import { randomBytes } from 'node:crypto';
import { type KeySigner, keySigners } from '../src/core/key-signature.js';
import { KEY_KINDS } from '../src/core/key-kinds.js';
import { BRAND_KEY, hashKey } from '../src/core/secret-keys.js';
import { parseKeySigningSecret } from '../src/config.js';
import type { KeyColumns } from '../src/store/repositories/keys.js';
import {
  BenchError,
  type Child,
  childEnv,
  CLI,
  cleanups,
  createScratchDatabase,
  DELIVERY_WORKERS,
  describe,
  fixed,
  formatTable,
  freePort,
  Latencies,
  type Memory,
  memoryOf,
  numberFromEnv,
  progress,
  round,
  runBench,
  SAMPLE_INTERVAL_MS,
  type Seed,
  seed,
  send,
  type Server,
  spawnNode,
  startService,
  tail,
} from './harness.js';

const OPERATION_PATH = '/functions/v1/brand-agent';
/** The service's verified-key cache holds this many keys (MAX_CACHED_KEYS in src/services/auth/credentials.ts). */
const KEY_CACHE_ENTRIES = 10_000;
const SMALL_WORKING_SET = 1000;
const WARMUP_S = 1;
const INSERT_BATCH = 5000;
/** How long a node may take to refuse a revoked key before the bench stops waiting (counted as this). */
const REFUSAL_TIMEOUT_MS = 5000;
/** Reads per second through the proxy while revocations are timed: light load, not a saturation test. */
const BACKGROUND_RATE = 200;

type Backend = 'sqlite' | 'postgres';

// ---------------------------------------------------------------------------------------------- settings

interface RateLimitSetting {
  text: string;
  points: number;
}

interface Settings {
  keys: number;
  workingSet: number;
  durationS: number;
  connections: number;
  coldStarts: number;
  revocations: number;
  rateLimit: RateLimitSetting;
  redisUrl: string | undefined;
  postgresAdminUrl: string | undefined;
  minRatio: number;
  maxColdStartMs: number;
  maxRevocationP99Ms: number;
  limitTolerance: number;
  maxRssGrowth: number;
}

const wholeAtLeast = (min: number) => (v: number) => Number.isInteger(v) && v >= min;

function loadSettings(): Settings {
  const workingSet = numberFromEnv(
    'BENCH_SCALE_WORKING_SET',
    50_000,
    wholeAtLeast(KEY_CACHE_ENTRIES + 1),
    `a whole number above the key cache's ${KEY_CACHE_ENTRIES}`,
  );
  const keys = numberFromEnv('BENCH_SCALE_KEYS', 1_000_000, wholeAtLeast(1), 'a whole number');
  if (keys < 2 * workingSet)
    throw new BenchError(
      `BENCH_SCALE_KEYS (${keys}) must be at least twice BENCH_SCALE_WORKING_SET (${workingSet})`,
    );
  const limitText = process.env.BENCH_SCALE_RATE_LIMIT?.trim() || '300/60s';
  const limit = /^(\d+)\/(\d+)s$/.exec(limitText);
  if (limit?.[1] === undefined || Number(limit[1]) < 10)
    throw new BenchError(`BENCH_SCALE_RATE_LIMIT must be N/Ss with N >= 10, as 300/60s; got "${limitText}"`);
  const redis = process.env.BENCH_REDIS_URL?.trim() || 'redis://127.0.0.1:6379';
  const postgresAdminUrl = process.env.BENCH_DATABASE_URL?.trim() || undefined;
  if (postgresAdminUrl !== undefined && !/^postgres(ql)?:\/\//.test(postgresAdminUrl))
    throw new BenchError('BENCH_DATABASE_URL must be a postgres:// URL');
  const positive = (v: number) => v > 0;
  return {
    keys,
    workingSet,
    durationS: numberFromEnv('BENCH_SCALE_DURATION', 8, wholeAtLeast(2), 'a whole number of seconds >= 2'),
    connections: numberFromEnv('BENCH_SCALE_CONNECTIONS', 10, wholeAtLeast(1), 'an integer >= 1'),
    coldStarts: numberFromEnv('BENCH_SCALE_COLD_STARTS', 3, wholeAtLeast(1), 'an integer >= 1'),
    revocations: numberFromEnv('BENCH_SCALE_REVOCATIONS', 100, wholeAtLeast(1), 'an integer >= 1'),
    rateLimit: { text: limitText, points: Number(limit[1]) },
    redisUrl: redis === 'off' ? undefined : redis,
    postgresAdminUrl,
    minRatio: numberFromEnv('BENCH_SCALE_MIN_RATIO', 0.9, (v) => v >= 0, 'a number >= 0'),
    maxColdStartMs: numberFromEnv('BENCH_SCALE_MAX_COLD_START_MS', 1000, positive, 'a number > 0'),
    maxRevocationP99Ms: numberFromEnv('BENCH_SCALE_MAX_REVOCATION_P99_MS', 1000, positive, 'a number > 0'),
    limitTolerance: numberFromEnv('BENCH_SCALE_LIMIT_TOLERANCE', 0.1, (v) => v >= 0, 'a number >= 0'),
    maxRssGrowth: numberFromEnv('BENCH_SCALE_MAX_RSS_GROWTH', 1.25, positive, 'a number > 0'),
  };
}

// ------------------------------------------------------------------------------------------ bulk insert

/** Where the bulk-inserted keys go: the backend's own client, straight into the migrated schema. */
interface KeySink {
  insert(rows: Insertable<KeyColumns>[]): Promise<void>;
  close(): Promise<void>;
}

const KEY_COLUMNS = [
  'id',
  'kind',
  'workspace_id',
  'name',
  'key_hash',
  'prefix',
  'last4',
  'created_at',
  'expires_at',
] as const satisfies readonly (keyof KeyColumns)[];

function sqliteSink(path: string): KeySink {
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  const statement = db.prepare(
    `INSERT INTO keys (${KEY_COLUMNS.join(', ')}) VALUES (${KEY_COLUMNS.map(() => '?').join(', ')})`,
  );
  const insertAll = db.transaction((rows: Insertable<KeyColumns>[]) => {
    for (const row of rows) statement.run(KEY_COLUMNS.map((column) => row[column] ?? null));
  });
  return {
    insert: (rows) => {
      insertAll(rows);
      return Promise.resolve();
    },
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

async function postgresSink(url: string): Promise<KeySink> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // One statement per batch: every column as an array, unnested into rows.
  const sql =
    `INSERT INTO keys (${KEY_COLUMNS.join(', ')}) SELECT * FROM unnest(` +
    `${KEY_COLUMNS.map((column, i) => `$${i + 1}::${column.endsWith('_at') ? 'timestamptz' : 'text'}[]`).join(', ')})`;
  return {
    insert: async (rows) => {
      await client.query(
        sql,
        KEY_COLUMNS.map((column) => rows.map((row) => row[column] ?? null)),
      );
    },
    close: () => client.end(),
  };
}

/** Opens the store of `databaseUrl` for bulk inserts (`sqlite:PATH` or `postgres://…`). */
function openSink(databaseUrl: string): Promise<KeySink> {
  return databaseUrl.startsWith('sqlite:')
    ? Promise.resolve(sqliteSink(databaseUrl.slice('sqlite:'.length)))
    : postgresSink(databaseUrl);
}

/**
 * Every service the bench spawns (they inherit this process's environment, bench/harness.ts `childEnv`) signs
 * keys with one BRAND_CONTEXT_KEY_SIGNING_SECRET, as nodes of one deployment do (docs/keys.md "Brand read keys"): on
 * PostgreSQL there is no key file, and without it every key the cache misses would be looked up.
 */
process.env.BRAND_CONTEXT_KEY_SIGNING_SECRET ||= randomBytes(32).toString('base64');

/** The signer of brand read keys, with the services' secret: keys are signed as the service signs them. */
function brandKeySigner(): KeySigner {
  const signer = keySigners(parseKeySigningSecret(process.env)).brand;
  if (signer === undefined) throw new BenchError('brand read keys are not signed');
  return signer;
}

/**
 * Inserts `count` new brand read keys of `workspaceId`, made and hashed as the service makes them
 * (src/services/keys/keys.ts), and returns the plaintexts of those `keep` picks (by their position).
 */
async function insertKeys(
  sink: KeySink,
  signer: KeySigner,
  workspaceId: string,
  count: number,
  keep: (position: number) => boolean,
): Promise<string[]> {
  const now = Date.now();
  const createdAt = new Date(now).toISOString();
  const expiry = now + KEY_KINDS.brand.lifetimeDays * 86_400_000;
  const expiresAt = new Date(expiry).toISOString();
  const kept: string[] = [];
  let reported = Date.now();
  for (let start = 0; start < count; start += INSERT_BATCH) {
    const rows: Insertable<KeyColumns>[] = [];
    for (let position = start; position < Math.min(count, start + INSERT_BATCH); position++) {
      const { key, id } = signer.issue(workspaceId, expiry);
      if (keep(position)) kept.push(key);
      rows.push({
        id,
        kind: 'brand',
        workspace_id: workspaceId,
        name: `scale ${position}`,
        key_hash: hashKey(key),
        ...BRAND_KEY.hint(key),
        created_at: createdAt,
        expires_at: expiresAt,
      });
    }
    await sink.insert(rows);
    if (Date.now() - reported > 10_000) {
      reported = Date.now();
      progress(`  ${start + rows.length} of ${count} keys inserted`);
    }
  }
  return kept;
}

// --------------------------------------------------------------------------------------------- load

function readBody(workspaceId: string): string {
  return JSON.stringify({ action: 'context', workspace_id: workspaceId });
}

function readHeaders(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

interface Load {
  rps: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** Adds up an autocannon run's rounds: responses over the total duration, percentiles over every response. */
class LoadRuns {
  private readonly latencies = new Latencies();
  private responses = 0;
  private seconds = 0;
  private non2xx = 0;
  private errors = 0;

  record(ms: number): void {
    this.latencies.add(ms);
  }

  /** Adds a run; returns its own req/s. */
  add(result: autocannon.Result): number {
    const responses = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
    this.responses += responses;
    this.seconds += result.duration;
    this.non2xx += result.non2xx;
    this.errors += result.errors + result.timeouts;
    return responses / result.duration;
  }

  load(): Load {
    const [p50 = Number.NaN, p99 = Number.NaN] = this.latencies.percentiles(50, 99);
    return {
      rps: this.seconds > 0 ? this.responses / this.seconds : Number.NaN,
      requests: this.responses,
      p50Ms: p50,
      p99Ms: p99,
      non2xx: this.non2xx,
      errors: this.errors,
    };
  }
}

/**
 * Keys taken in turn, the position kept from one run to the next: cycling through more keys than the LRU
 * cache holds, every read misses (a key comes back only after more than the cache's worth of others).
 */
class KeyCycle {
  private position = 0;

  constructor(readonly keys: readonly string[]) {}

  get size(): number {
    return this.keys.length;
  }

  next(): string {
    const key = this.keys[this.position] ?? '';
    this.position = (this.position + 1) % this.keys.length;
    return key;
  }
}

interface CannonOptions {
  url: string;
  keys: KeyCycle;
  workspaceId: string;
  connections: number;
  durationS: number;
  overallRate?: number;
}

/**
 * Reads the brand with the keys of `options.keys` in turn, every connection taking the next one. Resolves
 * with the run; `stop()` ends it early.
 */
function cannon(
  options: CannonOptions,
  runs?: LoadRuns,
): { done: Promise<autocannon.Result>; stop: () => void } {
  let stop: (() => void) | undefined;
  const done = new Promise<autocannon.Result>((resolveRun, reject) => {
    const instance = autocannon(
      {
        url: `${options.url}${OPERATION_PATH}`,
        method: 'POST',
        headers: readHeaders(options.keys.next()),
        body: readBody(options.workspaceId),
        connections: options.connections,
        duration: options.durationS,
        sampleInt: SAMPLE_INTERVAL_MS,
        ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
        requests: [
          {
            setupRequest: (request) => {
              const authorization = `Bearer ${options.keys.next()}`;
              return { ...request, headers: { ...request.headers, authorization } };
            },
          },
        ],
      },
      (error: unknown, result: autocannon.Result) => {
        if (error !== null && error !== undefined)
          reject(error instanceof Error ? error : new BenchError(describe(error)));
        else resolveRun(result);
      },
    );
    if (runs) {
      instance.on('response', (_client, _status, _bytes, responseTime) => {
        runs.record(responseTime);
      });
    }
    stop = () => {
      instance.stop();
    };
  });
  return {
    done,
    stop: () => {
      stop?.();
    },
  };
}

/** The key cache's lookups, as the service's GET /metrics counts them. */
interface CacheCounts {
  hits: number;
  misses: number;
}

const cacheCountLine = (name: string) =>
  new RegExp(`^brand_context_cache_${name}_total\\{cache="keys"\\} (\\S+)$`, 'm');

/** The key cache's hits and misses so far; undefined where the service exports no metrics. */
async function keyCacheCounts(service: Server): Promise<CacheCounts | undefined> {
  const res = await send(`${service.baseUrl}/metrics`);
  if (res.status !== 200) return undefined;
  const text = res.body.toString('utf8');
  const hits = cacheCountLine('hits').exec(text)?.[1];
  const misses = cacheCountLine('misses').exec(text)?.[1];
  return hits === undefined || misses === undefined
    ? undefined
    : { hits: Number(hits), misses: Number(misses) };
}

/** The part of a working set's reads that the key cache answered, from the counts around each of its runs. */
class HitRatio {
  private hits = 0;
  private misses = 0;
  private known = true;

  add(before: CacheCounts | undefined, after: CacheCounts | undefined): void {
    if (before === undefined || after === undefined) this.known = false;
    else {
      this.hits += after.hits - before.hits;
      this.misses += after.misses - before.misses;
    }
  }

  ratio(): number {
    return this.known && this.hits + this.misses > 0 ? this.hits / (this.hits + this.misses) : Number.NaN;
  }
}

interface WorkingSetResult {
  keys: number;
  load: Load;
  /** Reads the key cache answered, as the service counted them (GET /metrics). */
  hitRatio: number;
  rssMb: number;
  peakRssMb: number;
}

interface StoreResult {
  storeKeys: number;
  small: WorkingSetResult;
  large: WorkingSetResult;
  /** Large / 1,000-key working set req/s: the median of the back-to-back pairs' ratios. */
  ratio: number;
  coldStarts: ColdStart[];
}

/** Each working set is measured in segments of this long, in alternating pairs (A B, B A, A B, …). */
const SEGMENT_S = 1;

/**
 * Both working sets on one running service: a warm-up of each, then 1-s segments of each in alternating pairs.
 * The machine's speed drifts during a run (a shared VM's by tens of % from one second to the next), so the
 * figure is the median of the pairs' ratios, each pair's two segments measured back to back, rather than the
 * ratio of the totals, which one slow second on one side moves.
 */
async function measureStore(
  label: string,
  service: Server,
  workspaceId: string,
  storeKeys: number,
  smallKeys: readonly string[],
  largeKeys: readonly string[],
  settings: Settings,
): Promise<Omit<StoreResult, 'coldStarts'>> {
  const base = { url: service.baseUrl, workspaceId, connections: settings.connections };
  const small = new KeyCycle(smallKeys);
  const large = new KeyCycle(largeKeys);
  progress(`${label}: warm-up ${WARMUP_S} s per working set`);
  await cannon({ ...base, keys: small, durationS: WARMUP_S }).done;
  await cannon({ ...base, keys: large, durationS: WARMUP_S }).done;
  const segments = Math.round(settings.durationS / SEGMENT_S);
  /** One working set's measuring: its segments' load and key cache counts, and the RSS after its last. */
  const measuring = (keys: KeyCycle) => ({
    keys,
    runs: new LoadRuns(),
    hits: new HitRatio(),
    memory: undefined as Memory | undefined,
  });
  const smallSet = measuring(small);
  const largeSet = measuring(large);
  /** Measures one segment of `set`; returns its req/s. */
  const measure = async (set: ReturnType<typeof measuring>): Promise<number> => {
    const before = await keyCacheCounts(service);
    const rps = set.runs.add(await cannon({ ...base, keys: set.keys, durationS: SEGMENT_S }, set.runs).done);
    set.hits.add(before, await keyCacheCounts(service));
    set.memory = await memoryOf(service.child.pid);
    return rps;
  };
  progress(
    `${label}: measuring ${settings.durationS} s per working set (${small.size} and ${large.size} keys), in ${segments} pairs of ${SEGMENT_S} s segments`,
  );
  const pairRatios: number[] = [];
  for (let pair = 0; pair < segments; pair++) {
    const smallFirst = pair % 2 === 0;
    const first = await measure(smallFirst ? smallSet : largeSet);
    const second = await measure(smallFirst ? largeSet : smallSet);
    pairRatios.push(smallFirst ? second / first : first / second);
  }
  const resultOf = (set: ReturnType<typeof measuring>): WorkingSetResult => ({
    keys: set.keys.size,
    load: set.runs.load(),
    hitRatio: set.hits.ratio(),
    rssMb: set.memory?.rssMb ?? Number.NaN,
    peakRssMb: set.memory?.peakMb ?? Number.NaN,
  });
  return { storeKeys, small: resultOf(smallSet), large: resultOf(largeSet), ratio: median(pairRatios) };
}

// ------------------------------------------------------------------------------------------- cold start

interface ColdStart {
  /** Spawn → the read operation's first 200. */
  firstOkMs: number;
  /** Spawn → the "Server listening" log line: process start, modules, database, routes. */
  listeningMs: number;
  /**
   * CPU time the process had used by its first 200 (user + system, every thread): what a start costs,
   * whatever else the machine is doing, where the wall-clock figures grow with the machine's load.
   */
  cpuMs: number;
}

/** utime + stime of a process in ms (fields 14 and 15 of /proc/<pid>/stat, in USER_HZ ticks of 10 ms); NaN off Linux. */
async function cpuTimeMs(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * Spawns `serve` on `databaseUrl` and times spawn → first 200 of the read operation with `key`, polling as
 * fast as the service can refuse connections; the service is stopped again.
 */
async function coldStart(
  dir: string,
  databaseUrl: string,
  workspaceId: string,
  key: string,
  run: number,
): Promise<ColdStart> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const logPath = join(dir, `cold-start-${run}.log`);
  const log = openSync(logPath, 'w');
  const spawnedAt = Date.now();
  const started = performance.now();
  let child: Child;
  try {
    child = spawnNode(
      'cold start',
      [CLI, 'serve'],
      childEnv({
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DELIVERY_WORKERS: String(DELIVERY_WORKERS),
      }),
      ['ignore', log, log],
    );
  } finally {
    closeSync(log);
  }
  try {
    const deadline = started + 20_000;
    while (performance.now() < deadline) {
      if (!child.running()) throw new BenchError(`cold start: serve exited:\n${await tail(logPath)}`);
      try {
        const res = await send(`${baseUrl}${OPERATION_PATH}`, {
          method: 'POST',
          headers: readHeaders(key),
          body: readBody(workspaceId),
        });
        if (res.status !== 200) throw new BenchError(`cold start: the read operation answered ${res.status}`);
        const firstOkMs = performance.now() - started;
        const cpuMs = await cpuTimeMs(child.pid);
        return { firstOkMs, cpuMs, listeningMs: (await loggedAt(logPath, 'Server listening')) - spawnedAt };
      } catch (error) {
        if (error instanceof BenchError) throw error;
        // Not listening yet.
      }
      await delay(5);
    }
    throw new BenchError('cold start: no 200 within 20 s');
  } finally {
    await child.stop();
  }
}

/** The epoch ms of the first log line whose message starts with `message`; NaN if there is none. */
async function loggedAt(logPath: string, message: string): Promise<number> {
  const lineSchema = z.object({ time: z.union([z.string(), z.number()]), msg: z.string() });
  for (const line of (await readFile(logPath, 'utf8')).split('\n')) {
    if (!line.startsWith('{')) continue;
    const parsed = lineSchema.safeParse(JSON.parse(line));
    if (parsed.success && parsed.data.msg.startsWith(message)) return new Date(parsed.data.time).getTime();
  }
  return Number.NaN;
}

/** `count` cold starts on a store, each reading with a key the new process has never seen. */
async function timeColdStarts(
  label: string,
  dir: string,
  databaseUrl: string,
  workspaceId: string,
  keys: readonly string[],
  count: number,
): Promise<ColdStart[]> {
  const runs: ColdStart[] = [];
  for (let run = 0; run < count; run++) {
    const key = keys[(run * 7919) % keys.length] ?? '';
    const measured = await coldStart(dir, databaseUrl, workspaceId, key, run);
    runs.push(measured);
    progress(
      `${label}: cold start ${run + 1}: first 200 after ${fixed(measured.firstOkMs, 0)} ms (listening after ${fixed(measured.listeningMs, 0)} ms, ${fixed(measured.cpuMs, 0)} ms of CPU)`,
    );
  }
  return runs;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

// ------------------------------------------------------------------------------------------ per backend

interface BackendResult {
  backend: Backend;
  insertS: number;
  stores: StoreResult[];
}

interface ScaleStore {
  databaseUrl: string;
  demo: Seed;
  /** Plaintexts of a sample spread over the full store, for the three-node part. */
  sample: string[];
}

async function benchBackend(
  backend: Backend,
  databaseUrl: string,
  dir: string,
  settings: Settings,
): Promise<{ result: BackendResult; store: ScaleStore }> {
  await mkdir(dir, { recursive: true });
  progress(`${backend}: seeding the demo workspace`);
  const demo = await seed(databaseUrl);
  const signer = brandKeySigner();
  const { keys, workingSet } = settings;

  // The small store: the working set's keys and nothing else.
  const insertStarted = performance.now();
  let sink = await openSink(databaseUrl);
  let smallStoreKeys: string[];
  let rest: string[];
  // Every `stride`-th key of the full store is kept, so that its working set is spread over all of it.
  const stride = Math.floor(keys / workingSet);
  try {
    progress(`${backend}: inserting ${workingSet} keys (the small store)`);
    smallStoreKeys = await insertKeys(sink, signer, demo.workspace_id, workingSet, () => true);
  } finally {
    await sink.close();
  }
  let insertS = (performance.now() - insertStarted) / 1000;
  const small = smallStoreKeys.slice(0, SMALL_WORKING_SET);
  const stores: StoreResult[] = [];
  // One cold start on the small store, beside the full store's: what the number of keys changes.
  let coldStarts = await timeColdStarts(
    `${backend} ${workingSet} keys`,
    dir,
    databaseUrl,
    demo.workspace_id,
    smallStoreKeys,
    1,
  );
  let service = await startService(dir, databaseUrl, { RATE_LIMIT_READS: 'off' }, `${backend}-small`);
  stores.push({
    ...(await measureStore(
      `${backend} ${workingSet} keys`,
      service,
      demo.workspace_id,
      workingSet,
      small,
      smallStoreKeys,
      settings,
    )),
    coldStarts,
  });
  await stopService(`${backend} ${workingSet} keys`, service);

  // The full store.
  const more = keys - workingSet;
  const restStarted = performance.now();
  sink = await openSink(databaseUrl);
  try {
    progress(`${backend}: inserting ${more} more keys (the full store, ${keys} keys)`);
    rest = await insertKeys(sink, signer, demo.workspace_id, more, (position) => position % stride === 0);
  } finally {
    await sink.close();
  }
  insertS += (performance.now() - restStarted) / 1000;
  const spread = [...smallStoreKeys.filter((_, i) => i % stride === 0), ...rest].slice(0, workingSet);
  progress(`${backend}: ${keys} keys inserted in ${fixed(insertS, 1)} s`);

  coldStarts = await timeColdStarts(
    `${backend} ${keys} keys`,
    dir,
    databaseUrl,
    demo.workspace_id,
    spread,
    settings.coldStarts,
  );
  service = await startService(dir, databaseUrl, { RATE_LIMIT_READS: 'off' }, `${backend}-full`);
  stores.push({
    ...(await measureStore(
      `${backend} ${keys} keys`,
      service,
      demo.workspace_id,
      keys,
      small,
      spread,
      settings,
    )),
    coldStarts,
  });
  await stopService(`${backend} ${keys} keys`, service);

  return {
    result: { backend, insertS, stores },
    store: { databaseUrl, demo, sample: spread },
  };
}

async function stopService(label: string, service: Server): Promise<void> {
  const stopping = performance.now();
  await service.child.stop();
  // Shutdown writes the last_used_at stamps not yet written: one per key used since the last flush.
  progress(`${label}: stopped in ${fixed((performance.now() - stopping) / 1000, 1)} s`);
  const { exitCode, signalCode } = service.child.process;
  if (exitCode !== 0)
    progress(
      `${label}: warning: the service did not exit cleanly on SIGTERM (${exitCode ?? signalCode ?? '?'})`,
    );
}

// ------------------------------------------------------------------------------------------ three nodes

/** A round-robin HTTP proxy on 127.0.0.1 in front of `targets`: part of the bench, not of the product. */
async function startProxy(targets: readonly string[]): Promise<{ url: string; close: () => Promise<void> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;
  const server: HttpServer = createServer((req, res) => {
    const target = new URL(req.url ?? '/', targets[next++ % targets.length]);
    const upstream = httpRequest(target, { method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.once('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 5000;
  const port = await freePort();
  await new Promise<void>((resolveListen) => server.listen(port, '127.0.0.1', resolveListen));
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolveClose) => {
      server.close(() => {
        resolveClose();
      });
    });
    agent.destroy();
  };
  cleanups.push(close);
  return { url: `http://127.0.0.1:${port}`, close };
}

const problemSchema = z.object({ code: z.string() });
const sessionSchema = z.object({ access_token: z.string().min(1) });
const createdKeySchema = z.object({ id: z.string().min(1), key: z.string().min(1) });

async function signIn(node: string, demo: Seed): Promise<string> {
  const res = await send(`${node}/auth/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(demo.owner),
    // scrypt at its production cost, on a machine the three nodes keep busy.
    timeoutMs: 15_000,
  });
  if (res.status !== 200)
    throw new BenchError(`sign-in answered ${res.status}: ${res.body.toString('utf8')}`);
  return sessionSchema.parse(JSON.parse(res.body.toString('utf8'))).access_token;
}

async function createKey(
  node: string,
  demo: Seed,
  token: string,
  name: string,
): Promise<{ id: string; key: string }> {
  const res = await send(`${node}/api/v1/workspaces/${demo.workspace_id}/brand-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (res.status !== 201)
    throw new BenchError(`creating a key answered ${res.status}: ${res.body.toString('utf8')}`);
  return createdKeySchema.parse(JSON.parse(res.body.toString('utf8')));
}

async function read(
  node: string,
  demo: Seed,
  key: string,
  agent?: Agent,
): Promise<{ status: number; code?: string }> {
  const res = await send(`${node}${OPERATION_PATH}`, {
    method: 'POST',
    headers: readHeaders(key),
    body: readBody(demo.workspace_id),
    ...(agent === undefined ? {} : { agent }),
  });
  if (res.status === 200) return { status: 200 };
  const problem = problemSchema.safeParse(JSON.parse(res.body.toString('utf8')));
  return { status: res.status, ...(problem.success ? { code: problem.data.code } : {}) };
}

/** Reads until `node` refuses `key` as revoked; ms from `since`, or REFUSAL_TIMEOUT_MS if it never does. */
async function refusedAfter(
  node: string,
  demo: Seed,
  key: string,
  since: number,
  agent: Agent,
): Promise<number> {
  while (performance.now() - since < REFUSAL_TIMEOUT_MS) {
    const answer = await read(node, demo, key, agent);
    if (answer.status === 401 && answer.code === 'key_revoked') return performance.now() - since;
    if (answer.status !== 200)
      throw new BenchError(`a node answered ${answer.status} ${answer.code ?? ''} while polling`);
  }
  return REFUSAL_TIMEOUT_MS;
}

interface RevocationResult {
  count: number;
  /** "Refused by all three", ms from the DELETE being sent. */
  allP50Ms: number;
  allP99Ms: number;
  allMaxMs: number;
  /** The revoking node itself (its DELETE answered, then its first read). */
  viaP99Ms: number;
  /** The two other nodes, which learn it from the change feed. */
  othersP99Ms: number;
  deleteP50Ms: number;
  background: Load;
}

async function startNodes(
  dir: string,
  databaseUrl: string,
  env: Record<string, string>,
  tag: string,
): Promise<Server[]> {
  const nodes: Server[] = [];
  for (const n of [1, 2, 3]) nodes.push(await startService(dir, databaseUrl, env, `${tag}-node-${n}`));
  return nodes;
}

async function benchRevocations(
  dir: string,
  store: ScaleStore,
  settings: Settings,
): Promise<RevocationResult> {
  const { demo } = store;
  const nodes = await startNodes(dir, store.databaseUrl, { RATE_LIMIT_READS: 'off' }, 'revocation');
  const urls = nodes.map((node) => node.baseUrl);
  const proxy = await startProxy(urls);
  progress(`three nodes: ${urls.join(', ')} behind ${proxy.url}`);
  const token = await signIn(proxy.url, demo);
  const agents = urls.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));

  const backgroundRuns = new LoadRuns();
  const background = cannon(
    {
      url: proxy.url,
      keys: new KeyCycle(store.sample.slice(0, SMALL_WORKING_SET)),
      workspaceId: demo.workspace_id,
      connections: 4,
      durationS: 3600,
      overallRate: BACKGROUND_RATE,
    },
    backgroundRuns,
  );

  const all = new Latencies();
  const via = new Latencies();
  const others = new Latencies();
  const deletes = new Latencies();
  try {
    progress(
      `three nodes: ${settings.revocations} revocations under ${BACKGROUND_RATE} reads/s through the proxy`,
    );
    for (let i = 0; i < settings.revocations; i++) {
      const viaIndex = i % urls.length;
      const viaUrl = urls[viaIndex] ?? '';
      const created = await createKey(viaUrl, demo, token, `revocation ${i}`);
      for (const [n, url] of urls.entries()) {
        const answer = await read(url, demo, created.key, agents[n]);
        if (answer.status !== 200)
          throw new BenchError(`node ${n + 1} answered ${answer.status} ${answer.code ?? ''} to a new key`);
      }
      const sent = performance.now();
      const revoking = send(`${viaUrl}/api/v1/workspaces/${demo.workspace_id}/brand-keys/${created.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      }).then((res) => {
        if (res.status >= 300) throw new BenchError(`revoking answered ${res.status}`);
        deletes.add(performance.now() - sent);
      });
      // The revoking node is polled once its DELETE has answered; the others from the moment it was sent.
      const delays = await Promise.all(
        urls.map(async (url, n) => {
          const agent = agents[n] ?? new Agent();
          if (n === viaIndex) await revoking;
          return refusedAfter(url, demo, created.key, sent, agent);
        }),
      );
      await revoking;
      for (const [n, ms] of delays.entries()) (n === viaIndex ? via : others).add(ms);
      all.add(Math.max(...delays));
    }
  } finally {
    background.stop();
    for (const agent of agents) agent.destroy();
  }
  backgroundRuns.add(await background.done);
  await proxy.close();
  for (const node of nodes) await stopService('three nodes', node);

  const [allP50 = Number.NaN, allP99 = Number.NaN, allMax = Number.NaN] = all.percentiles(50, 99, 100);
  return {
    count: settings.revocations,
    allP50Ms: allP50,
    allP99Ms: allP99,
    allMaxMs: allMax,
    viaP99Ms: via.percentiles(99)[0] ?? Number.NaN,
    othersP99Ms: others.percentiles(99)[0] ?? Number.NaN,
    deleteP50Ms: deletes.percentiles(50)[0] ?? Number.NaN,
    background: backgroundRuns.load(),
  };
}

interface LimitResult {
  mode: 'redis' | 'per node';
  budget: number;
  ok: number;
  limited: number;
  other: number;
  retryAfter: boolean;
  rateLimitHeaders: boolean;
}

/**
 * Three nodes with `RATE_LIMIT_READS` (and `REDIS_URL` when given) behind the proxy; one new key reads
 * through it, a few requests at a time, until three budgets' worth were sent.
 */
async function benchLimit(
  dir: string,
  store: ScaleStore,
  settings: Settings,
  redisUrl: string | undefined,
): Promise<LimitResult> {
  const env: Record<string, string> = { RATE_LIMIT_READS: settings.rateLimit.text };
  if (redisUrl !== undefined) env.REDIS_URL = redisUrl;
  const mode = redisUrl === undefined ? 'per node' : 'redis';
  const nodes = await startNodes(
    dir,
    store.databaseUrl,
    env,
    mode === 'redis' ? 'limit-redis' : 'limit-local',
  );
  const proxy = await startProxy(nodes.map((node) => node.baseUrl));
  try {
    const token = await signIn(proxy.url, store.demo);
    const { key } = await createKey(proxy.url, store.demo, token, `rate limit (${mode})`);
    const total = 3 * settings.rateLimit.points + 30;
    const counts = { ok: 0, limited: 0, other: 0, retryAfter: true, rateLimitHeaders: true };
    let sent = 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const worker = async () => {
      while (sent < total) {
        sent++;
        const res = await send(`${proxy.url}${OPERATION_PATH}`, {
          method: 'POST',
          headers: readHeaders(key),
          body: readBody(store.demo.workspace_id),
          agent,
        });
        if (res.status === 200) counts.ok++;
        else if (res.status === 429) {
          counts.limited++;
          counts.retryAfter &&= res.headers['retry-after'] !== undefined;
          counts.rateLimitHeaders &&=
            res.headers['ratelimit-policy'] !== undefined && res.headers.ratelimit !== undefined;
        } else counts.other++;
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    agent.destroy();
    return { mode, budget: settings.rateLimit.points, ...counts };
  } finally {
    await proxy.close();
    for (const node of nodes) await stopService(`three nodes (${mode})`, node);
  }
}

// ---------------------------------------------------------------------------------------------- printing

const fullStore = (result: BackendResult) => result.stores.at(-1);
const smallStore = (result: BackendResult) => result.stores[0];
const coldStartMs = (store: StoreResult | undefined) =>
  median(store?.coldStarts.map((run) => run.firstOkMs) ?? []);
const coldStartMaxMs = (store: StoreResult | undefined) =>
  Math.max(...(store?.coldStarts.map((run) => run.firstOkMs) ?? [Number.NaN]));
const listeningMs = (store: StoreResult | undefined) =>
  median(store?.coldStarts.map((run) => run.listeningMs) ?? []);
const coldStartCpuMs = (store: StoreResult | undefined) =>
  median(store?.coldStarts.map((run) => run.cpuMs) ?? []);
function rssGrowth(result: BackendResult): number {
  const [first, last] = [smallStore(result), fullStore(result)];
  if (first === undefined || last === undefined) return Number.NaN;
  return Math.max(last.large.rssMb, last.small.rssMb) / Math.max(first.large.rssMb, first.small.rssMb);
}

function loadTable(results: readonly BackendResult[]): string {
  const rows: string[][] = [];
  for (const result of results) {
    for (const store of result.stores) {
      for (const ws of [store.small, store.large]) {
        rows.push([
          result.backend,
          String(store.storeKeys),
          String(ws.keys),
          Number.isFinite(ws.hitRatio) ? `${fixed(100 * ws.hitRatio, 1)} %` : 'n/a',
          fixed(ws.load.rps, 0),
          fixed(ws.load.p50Ms, 2),
          fixed(ws.load.p99Ms, 2),
          fixed(ws.rssMb, 1),
          fixed(ws.peakRssMb, 1),
          String(ws.load.requests),
        ]);
      }
    }
  }
  return formatTable(
    [
      'backend',
      'keys in store',
      'working set',
      'key cache hits',
      'req/s',
      'p50 ms',
      'p99 ms',
      'RSS MB',
      'peak RSS MB',
      'requests',
    ],
    rows,
    1,
  );
}

function summaryTable(results: readonly BackendResult[]): string {
  const rows = results.map((result) => {
    const small = smallStore(result);
    const full = fullStore(result);
    return [
      result.backend,
      small ? fixed(small.ratio, 3) : 'n/a',
      full ? fixed(full.ratio, 3) : 'n/a',
      fixed(rssGrowth(result), 2),
      fixed(result.insertS, 1),
    ];
  });
  return formatTable(
    [
      'backend',
      'large/1k req/s (small store)',
      'large/1k req/s (full store)',
      'RSS full/small store',
      'insert s',
    ],
    rows,
    1,
  );
}

function coldStartTable(results: readonly BackendResult[]): string {
  const rows = results.flatMap((result) =>
    result.stores.map((store) => [
      result.backend,
      String(store.storeKeys),
      fixed(coldStartMs(store), 0),
      fixed(coldStartMaxMs(store), 0),
      fixed(listeningMs(store), 0),
      fixed(coldStartCpuMs(store), 0),
      String(store.coldStarts.length),
    ]),
  );
  return formatTable(
    [
      'cold start',
      'keys in store',
      'first 200 ms (median)',
      'max',
      'listening ms (median)',
      'CPU ms by first 200 (median)',
      'runs',
    ],
    rows,
    1,
  );
}

// ------------------------------------------------------------------------------------------------- main

async function main(): Promise<number> {
  const settings = loadSettings();
  if (!existsSync(CLI))
    throw new BenchError(`${CLI} is missing: run "npm run build" first (npm run bench does)`);
  const dir = await mkdtemp(join(tmpdir(), 'brand-context-scale-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const postgresUrl =
    settings.postgresAdminUrl === undefined
      ? undefined
      : await createScratchDatabase(settings.postgresAdminUrl);
  const started = performance.now();
  const loadBefore = loadavg();

  const results: BackendResult[] = [];
  const sqlite = await benchBackend(
    'sqlite',
    `sqlite:${join(dir, 'sqlite', 'scale.db')}`,
    join(dir, 'sqlite'),
    settings,
  );
  results.push(sqlite.result);
  await rm(join(dir, 'sqlite'), { recursive: true, force: true });
  let postgres: ScaleStore | undefined;
  if (postgresUrl !== undefined) {
    const measured = await benchBackend('postgres', postgresUrl, join(dir, 'postgres'), settings);
    results.push(measured.result);
    postgres = measured.store;
  }

  let revocations: RevocationResult | undefined;
  const limits: LimitResult[] = [];
  const skipped: string[] = [];
  const problems: string[] = [];
  // A part that fails is reported with the others' figures, not instead of them.
  const part = async (name: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      problems.push(`${name}: ${describe(error)}`);
    }
  };
  if (postgres === undefined) {
    skipped.push('three nodes: skipped, they need one PostgreSQL database (set BENCH_DATABASE_URL)');
  } else {
    const store = postgres;
    const nodesDir = join(dir, 'postgres');
    await part('revocation across three nodes', async () => {
      revocations = await benchRevocations(nodesDir, store, settings);
    });
    if (settings.redisUrl === undefined) {
      skipped.push('rate limit across nodes: skipped (BENCH_REDIS_URL=off)');
    } else {
      const redisUrl = settings.redisUrl;
      await part('rate limit across three nodes with REDIS_URL', async () => {
        limits.push(await benchLimit(nodesDir, store, settings, redisUrl));
      });
      await part('rate limit across three nodes without REDIS_URL', async () => {
        limits.push(await benchLimit(nodesDir, store, settings, undefined));
      });
    }
  }
  const loadAfter = loadavg();

  const out: string[] = [
    '',
    `scale benchmark: POST ${OPERATION_PATH}, ${settings.keys} keys in the full store, working sets of ` +
      `${SMALL_WORKING_SET} and ${settings.workingSet} keys (the key cache holds ${KEY_CACHE_ENTRIES}), ` +
      `${settings.connections} connections, ${settings.durationS} s per working set and store; node ${process.version}, ` +
      `${cpus().length} CPUs, load average ${fixed(loadBefore[0] ?? Number.NaN, 2)} before and ` +
      `${fixed(loadAfter[0] ?? Number.NaN, 2)} after, ${fixed((performance.now() - started) / 1000, 0)} s in all`,
    '',
    loadTable(results),
    '',
    summaryTable(results),
    '',
    coldStartTable(results),
    '',
  ];
  if (revocations !== undefined) {
    const r = revocations;
    out.push(
      formatTable(
        ['three nodes, one PostgreSQL', 'p50 ms', 'p99 ms', 'max ms'],
        [
          [
            `revoked key refused by all three (${r.count} revocations)`,
            fixed(r.allP50Ms, 1),
            fixed(r.allP99Ms, 1),
            fixed(r.allMaxMs, 1),
          ],
          ['  by the revoking node', '', fixed(r.viaP99Ms, 1), ''],
          ['  by the two others (change feed)', '', fixed(r.othersP99Ms, 1), ''],
          ['  the DELETE itself', fixed(r.deleteP50Ms, 1), '', ''],
        ],
        1,
      ),
      `background load through the proxy: ${fixed(r.background.rps, 0)} req/s, p99 ${fixed(r.background.p99Ms, 1)} ms, ` +
        `${r.background.non2xx} non-2xx, ${r.background.errors} errors`,
      '',
    );
  }
  if (limits.length > 0) {
    out.push(
      formatTable(
        ['rate limit, three nodes', 'budget', '200', '429', 'other', 'Retry-After', 'RateLimit headers'],
        limits.map((l) => [
          l.mode === 'redis' ? 'REDIS_URL (one budget)' : 'no REDIS_URL (per node)',
          String(l.budget),
          String(l.ok),
          String(l.limited),
          String(l.other),
          l.limited === 0 ? 'n/a' : l.retryAfter ? 'yes' : 'NO',
          l.limited === 0 ? 'n/a' : l.rateLimitHeaders ? 'yes' : 'NO',
        ]),
        1,
      ),
      '',
    );
  }
  out.push(...skipped, ...(skipped.length > 0 ? [''] : []));
  for (const result of results) {
    const full = fullStore(result);
    out.push(
      JSON.stringify({
        bench: 'scale',
        backend: result.backend,
        keys: settings.keys,
        working_set: settings.workingSet,
        rps_1k: full ? round(full.small.load.rps, 1) : null,
        rps_large: full ? round(full.large.load.rps, 1) : null,
        ratio: full ? round(full.ratio, 3) : null,
        hit_ratio_large: full ? round(full.large.hitRatio, 4) : null,
        p99_ms_1k: full ? round(full.small.load.p99Ms, 3) : null,
        p99_ms_large: full ? round(full.large.load.p99Ms, 3) : null,
        rss_mb_full_store: full ? round(Math.max(full.small.rssMb, full.large.rssMb), 1) : null,
        rss_growth: round(rssGrowth(result), 3),
        cold_start_ms: round(coldStartMs(full), 1),
        cold_start_max_ms: round(coldStartMaxMs(full), 1),
        cold_start_listening_ms: round(listeningMs(full), 1),
        cold_start_cpu_ms: round(coldStartCpuMs(full), 1),
        cold_start_small_store_ms: round(coldStartMs(smallStore(result)), 1),
      }),
    );
  }
  if (revocations !== undefined) {
    out.push(
      JSON.stringify({
        bench: 'scale-revocation',
        revocations: revocations.count,
        all_nodes_p50_ms: round(revocations.allP50Ms, 1),
        all_nodes_p99_ms: round(revocations.allP99Ms, 1),
        all_nodes_max_ms: round(revocations.allMaxMs, 1),
      }),
    );
  }
  for (const l of limits) {
    out.push(
      JSON.stringify({
        bench: 'scale-rate-limit',
        mode: l.mode,
        budget: l.budget,
        ok: l.ok,
        limited: l.limited,
      }),
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);

  for (const result of results) {
    for (const store of result.stores) {
      for (const ws of [store.small, store.large]) {
        if (ws.load.non2xx > 0 || ws.load.errors > 0 || ws.load.requests === 0)
          problems.push(
            `${result.backend} ${store.storeKeys} keys, working set ${ws.keys}: ${ws.load.non2xx} non-2xx, ${ws.load.errors} errors, ${ws.load.requests} responses`,
          );
      }
    }
    const full = fullStore(result);
    if (full && !(full.ratio >= settings.minRatio))
      problems.push(
        `${result.backend}: ratio ${fixed(full.ratio, 3)} is under BENCH_SCALE_MIN_RATIO ${settings.minRatio}`,
      );
    if (!(coldStartMs(full) <= settings.maxColdStartMs))
      problems.push(
        `${result.backend}: cold start ${fixed(coldStartMs(full), 0)} ms is over BENCH_SCALE_MAX_COLD_START_MS ${settings.maxColdStartMs}`,
      );
    if (!(rssGrowth(result) <= settings.maxRssGrowth))
      problems.push(
        `${result.backend}: RSS grew ${fixed(rssGrowth(result), 2)}x from the small store, over BENCH_SCALE_MAX_RSS_GROWTH ${settings.maxRssGrowth}`,
      );
  }
  if (revocations !== undefined) {
    if (!(revocations.allP99Ms <= settings.maxRevocationP99Ms))
      problems.push(
        `revocation p99 ${fixed(revocations.allP99Ms, 0)} ms is over BENCH_SCALE_MAX_REVOCATION_P99_MS ${settings.maxRevocationP99Ms}`,
      );
    if (revocations.background.non2xx > 0 || revocations.background.errors > 0)
      problems.push(
        `background load during revocations: ${revocations.background.non2xx} non-2xx, ${revocations.background.errors} errors`,
      );
  }
  for (const l of limits.filter((each) => each.mode === 'redis')) {
    const off = Math.abs(l.ok - l.budget) / l.budget;
    if (l.limited === 0)
      problems.push(
        `rate limit across nodes: no 429 in ${l.ok + l.other} reads with RATE_LIMIT_READS=${settings.rateLimit.text}: the limit is not enforced`,
      );
    else if (!(off <= settings.limitTolerance))
      problems.push(
        `rate limit across nodes: ${l.ok} reads answered 200 for a budget of ${l.budget} (${fixed(100 * off, 1)} % off, over BENCH_SCALE_LIMIT_TOLERANCE ${settings.limitTolerance})`,
      );
    if (l.other > 0) problems.push(`rate limit across nodes: ${l.other} answers neither 200 nor 429`);
    if (l.limited > 0 && !(l.retryAfter && l.rateLimitHeaders))
      problems.push('rate limit across nodes: a 429 without Retry-After, RateLimit-Policy or RateLimit');
  }
  for (const problem of problems) progress(`FAIL: ${problem}`);
  return problems.length === 0 ? 0 : 1;
}

await runBench(main);
