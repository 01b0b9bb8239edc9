/**
 * `npx tsx bench/password-reset-timing.ts` (after `npm run build`): whether `POST /auth/v1/password-reset`
 * tells by its timing whether an account has the address (docs/account-email.md "Account email"), as an attacker would
 * measure it. On each backend (an SQLite file; PostgreSQL too with BENCH_DATABASE_URL or TEST_DATABASE_URL),
 * the service runs as `serve` runs it, with BENCH_RESET_REQUESTS accounts made beforehand; that many
 * addresses of those accounts ("known") and as many addresses of no account ("unknown") are then asked for,
 * each from a client address of its own (X-Forwarded-For, TRUST_PROXY=true: an attacker with many
 * addresses, so that no per-address throttle answers in their place), the two kinds shuffled together:
 *
 * - accepted: the first request for each address (202);
 * - accepted again: its 2nd and 3rd (202: 3 an hour per email address);
 * - throttled per email address: its 4th (429 `rate_limited`, `reset_email`);
 * - throttled per client address: one address's requests past its 10 in 15 minutes (429, `reset_ip`),
 *   known and unknown addresses shuffled again.
 *
 * Each request goes over one keep-alive connection, timed from its first byte sent to its last byte
 * received, after a pause (BENCH_RESET_GAP_MS) in which the work queued by the one before has run: the
 * service is idle when each probe arrives. For each answer, the two kinds' medians, their difference, how
 * often a known address's request took longer than an unknown one's (0.5: a coin toss), and the two-sided
 * Mann-Whitney U test's p-value are printed. If any p-value is below BENCH_RESET_ALPHA, or the two kinds
 * ever got different statuses, the run exits 1.
 *
 * Environment:
 *   BENCH_RESET_REQUESTS  addresses of each kind per backend (default 400)
 *   BENCH_RESET_GAP_MS    pause before each request, in ms (default 5)
 *   BENCH_RESET_ALPHA     significance level under which a difference fails the run (default 0.001)
 *   BENCH_DATABASE_URL    postgres://… admin URL (else TEST_DATABASE_URL): also measure PostgreSQL, in a
 *                         scratch database created (and dropped WITH (FORCE)) for this run
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseDatabaseUrl } from '../src/config.js';
import { systemClock } from '../src/core/clock.js';
import { findOrCreateUser } from '../src/services/accounts/workspaces.js';
import { openStore } from '../src/store/open-store.js';
import {
  BenchError,
  CLI,
  cleanups,
  createScratchDatabase,
  fixed,
  formatTable,
  numberFromEnv,
  progress,
  round,
  runBench,
  seed,
  send,
  startService,
} from './harness.js';

const RESET_PATH = '/auth/v1/password-reset';
/** The service's defaults (docs/account-email.md "Account email"): the measurement crosses both limits. */
const PER_EMAIL_ATTEMPTS = 3;
const PER_IP_ATTEMPTS = 10;
/** Discarded requests of each kind before the first measured ones, while V8 optimizes the route. */
const WARMUP_REQUESTS = 100;

type Kind = 'known' | 'unknown';

interface Settings {
  requests: number;
  gapMs: number;
  alpha: number;
  postgresAdminUrl: string | undefined;
}

function loadSettings(): Settings {
  const postgresAdminUrl =
    process.env.BENCH_DATABASE_URL?.trim() || process.env.TEST_DATABASE_URL?.trim() || undefined;
  if (postgresAdminUrl !== undefined && !/^postgres(ql)?:\/\//.test(postgresAdminUrl)) {
    throw new BenchError('BENCH_DATABASE_URL (or TEST_DATABASE_URL) must be a postgres:// URL');
  }
  return {
    requests: numberFromEnv(
      'BENCH_RESET_REQUESTS',
      400,
      (v) => Number.isInteger(v) && v >= 20,
      'a whole number >= 20',
    ),
    gapMs: numberFromEnv('BENCH_RESET_GAP_MS', 5, (v) => v >= 0, 'a number of ms >= 0'),
    alpha: numberFromEnv('BENCH_RESET_ALPHA', 0.001, (v) => v > 0 && v < 1, 'a number between 0 and 1'),
    postgresAdminUrl,
  };
}

// ----------------------------------------------------------------------------------------------- statistics

/** The median of `values` (not empty). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/** erfcc's coefficients, highest power of t first (Numerical Recipes, 6.2). */
const ERFC_COEFFICIENTS = [
  0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
  1.00002368, -1.26551223,
];

/** The complementary error function (Numerical Recipes' erfcc: relative error below 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + z / 2);
  const polynomial = ERFC_COEFFICIENTS.reduce((sum, coefficient) => sum * t + coefficient, 0);
  const r = t * Math.exp(-z * z + polynomial);
  return x >= 0 ? r : 2 - r;
}

interface Comparison {
  /** How often a request of `a` took longer than one of `b` (ties count half): 0.5 tells nothing. */
  aSlower: number;
  /** Two-sided p-value of the Mann-Whitney U test (normal approximation, ties corrected, continuity corrected). */
  p: number;
}

/** The Mann-Whitney U test of `a` against `b`. */
function mannWhitney(a: readonly number[], b: readonly number[]): Comparison {
  const all = [
    ...a.map((value) => ({ value, fromA: true })),
    ...b.map((value) => ({ value, fromA: false })),
  ].sort((x, y) => x.value - y.value);
  const n = all.length;
  let rankSumA = 0;
  let tieTerm = 0;
  for (let start = 0; start < n;) {
    let end = start;
    while (end + 1 < n && all[end + 1]?.value === all[start]?.value) end++;
    // Ranks start..end (1-based start+1..end+1) share their mean.
    const rank = (start + end + 2) / 2;
    const tied = end - start + 1;
    tieTerm += tied ** 3 - tied;
    for (let i = start; i <= end; i++) if (all[i]?.fromA) rankSumA += rank;
    start = end + 1;
  }
  const n1 = a.length;
  const n2 = b.length;
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  const z = variance > 0 ? Math.max(0, Math.abs(u - mean) - 0.5) / Math.sqrt(variance) : 0;
  return { aSlower: u / (n1 * n2), p: Math.min(1, erfc(z / Math.SQRT2)) };
}

// ---------------------------------------------------------------------------------------------- measuring

interface Probe {
  kind: Kind;
  email: string;
  /** The client address it comes from (X-Forwarded-For). */
  ip: string;
}

interface Timed {
  kind: Kind;
  status: number;
  ms: number;
}

/** Each step a new client address, out of 10.0.0.0/8: no per-address throttle is reached by accident. */
let nextIp = 1;
function freshIp(): string {
  const n = nextIp++;
  return `10.${String((n >> 16) & 255)}.${String((n >> 8) & 255)}.${String(n & 255)}`;
}

/** Fisher-Yates, in place. */
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** Sends `probes` in order, one at a time on `agent`'s one connection, each after `gapMs`, and times each. */
async function probe(baseUrl: string, agent: Agent, probes: Probe[], gapMs: number): Promise<Timed[]> {
  const timed: Timed[] = [];
  for (const { kind, email, ip } of probes) {
    await delay(gapMs);
    const started = process.hrtime.bigint();
    const response = await send(`${baseUrl}${RESET_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify({ email }),
      agent,
      timeoutMs: 10_000,
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    timed.push({ kind, status: response.status, ms });
  }
  return timed;
}

interface Row {
  backend: string;
  answer: string;
  /** The status every request of this answer should get. */
  expected: number;
  timed: Timed[];
}

/** Makes `count` accounts (without passwords: asking for a reset needs none) and returns their addresses. */
async function makeAccounts(databaseUrl: string, count: number, tag: string): Promise<string[]> {
  const store = await openStore(parseDatabaseUrl(databaseUrl));
  try {
    const emails: string[] = [];
    for (let i = 0; i < count; i++) {
      const email = `known-${tag}-${String(i)}@timing.example`;
      await findOrCreateUser({ store, clock: systemClock }, email);
      emails.push(email);
    }
    return emails;
  } finally {
    await store.close();
  }
}

async function benchBackend(
  backend: string,
  databaseUrl: string,
  dir: string,
  settings: Settings,
): Promise<Row[]> {
  await mkdir(dir, { recursive: true });
  progress(`${backend}: migrating, and making ${String(settings.requests + WARMUP_REQUESTS)} accounts`);
  await seed(databaseUrl);
  const tag = Math.random().toString(36).slice(2, 8);
  const known = await makeAccounts(databaseUrl, settings.requests + WARMUP_REQUESTS, tag);
  const unknown = known.map((_, i) => `nobody-${tag}-${String(i)}@timing.example`);
  const service = await startService(dir, databaseUrl, { TRUST_PROXY: 'true' });
  progress(
    `${backend}: service ready at ${service.baseUrl} (pid ${String(service.child.pid)}, logs in ${service.logPath})`,
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const both = (from: number, to: number): Probe[] =>
      shuffle([
        ...known.slice(from, to).map((email) => ({ kind: 'known' as const, email, ip: freshIp() })),
        ...unknown.slice(from, to).map((email) => ({ kind: 'unknown' as const, email, ip: freshIp() })),
      ]);
    progress(`${backend}: ${String(2 * WARMUP_REQUESTS)} warm-up requests`);
    await probe(
      service.baseUrl,
      agent,
      both(settings.requests, settings.requests + WARMUP_REQUESTS),
      settings.gapMs,
    );

    const rows: Row[] = [];
    const measure = async (answer: string, expected: number, probes: () => Probe[]) => {
      progress(`${backend}: ${answer}`);
      rows.push({
        backend,
        answer,
        expected,
        timed: await probe(service.baseUrl, agent, probes(), settings.gapMs),
      });
    };
    const addresses = () => both(0, settings.requests);
    await measure('accepted (1st request)', 202, addresses);
    await measure('accepted again (2nd, 3rd)', 202, () =>
      Array.from({ length: PER_EMAIL_ATTEMPTS - 1 }, addresses).flat(),
    );
    await measure('throttled per email address', 429, addresses);
    // One client address, its allowance used up first (on addresses of no account, not compared).
    const ip = freshIp();
    const spend = Array.from({ length: PER_IP_ATTEMPTS }, (_, i) => ({
      kind: 'unknown' as const,
      email: `spent-${tag}-${String(i)}@timing.example`,
      ip,
    }));
    await probe(service.baseUrl, agent, spend, settings.gapMs);
    await measure('throttled per client address', 429, () => addresses().map((one) => ({ ...one, ip })));
    return rows;
  } finally {
    agent.destroy();
    await service.child.stop();
  }
}

// ----------------------------------------------------------------------------------------------- printing

interface Result extends Row {
  knownMs: number;
  unknownMs: number;
  comparison: Comparison;
  /** Statuses that were not the expected one, by kind. */
  unexpected: Record<Kind, number[]>;
}

function analyse(row: Row): Result {
  const of = (kind: Kind) => row.timed.filter((t) => t.kind === kind);
  const known = of('known').map((t) => t.ms);
  const unknown = of('unknown').map((t) => t.ms);
  const unexpected = (kind: Kind) =>
    of(kind)
      .map((t) => t.status)
      .filter((status) => status !== row.expected);
  return {
    ...row,
    knownMs: median(known),
    unknownMs: median(unknown),
    comparison: mannWhitney(known, unknown),
    unexpected: { known: unexpected('known'), unknown: unexpected('unknown') },
  };
}

function table(results: Result[], alpha: number): string {
  const headers = [
    'backend',
    'answer',
    'status',
    'n',
    'median known ms',
    'median unknown ms',
    'difference ms',
    'P(known slower)',
    'p-value',
    `p >= ${String(alpha)}`,
  ];
  const rows = results.map((r) => [
    r.backend,
    r.answer,
    String(r.expected),
    `${String(r.timed.filter((t) => t.kind === 'known').length)}+${String(r.timed.filter((t) => t.kind === 'unknown').length)}`,
    fixed(r.knownMs, 3),
    fixed(r.unknownMs, 3),
    fixed(r.knownMs - r.unknownMs, 3),
    fixed(r.comparison.aSlower, 3),
    r.comparison.p < 1e-4 ? r.comparison.p.toExponential(1) : fixed(r.comparison.p, 4),
    r.comparison.p >= alpha ? 'yes' : 'NO: it tells',
  ]);
  return formatTable(headers, rows, 2);
}

async function main(): Promise<number> {
  const settings = loadSettings();
  if (!existsSync(CLI)) throw new BenchError(`${CLI} is missing: run "npm run build" first`);
  const dir = await mkdtemp(join(tmpdir(), 'brand-context-reset-timing-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const postgresUrl =
    settings.postgresAdminUrl === undefined
      ? undefined
      : await createScratchDatabase(settings.postgresAdminUrl);

  const rows = await benchBackend(
    'sqlite',
    `sqlite:${join(dir, 'sqlite', 'bench.db')}`,
    join(dir, 'sqlite'),
    settings,
  );
  if (postgresUrl !== undefined)
    rows.push(...(await benchBackend('postgres', postgresUrl, join(dir, 'postgres'), settings)));
  else progress('PostgreSQL not measured: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to measure it too');

  const results = rows.map(analyse);
  const out = [
    '',
    `password reset timing: POST ${RESET_PATH}, ${String(settings.requests)} addresses of each kind, each request ` +
      `from its own client address after a ${String(settings.gapMs)} ms pause, kinds shuffled; node ${process.version}, ${String(cpus().length)} CPUs`,
    '',
    table(results, settings.alpha),
    '',
    ...results.map((r) =>
      JSON.stringify({
        bench: 'password-reset-timing',
        backend: r.backend,
        answer: r.answer,
        status: r.expected,
        known_median_ms: round(r.knownMs, 4),
        unknown_median_ms: round(r.unknownMs, 4),
        difference_ms: round(r.knownMs - r.unknownMs, 4),
        known_slower: round(r.comparison.aSlower, 4),
        p_value: r.comparison.p,
      }),
    ),
    '',
  ];
  process.stdout.write(out.join('\n'));

  const problems: string[] = [];
  for (const r of results) {
    const label = `${r.backend}, ${r.answer}`;
    if (r.comparison.p < settings.alpha) {
      problems.push(
        `${label}: known and unknown addresses differ (medians ${fixed(r.knownMs, 3)} vs ${fixed(r.unknownMs, 3)} ms, p = ${r.comparison.p.toExponential(1)})`,
      );
    }
    for (const kind of ['known', 'unknown'] as const) {
      const statuses = r.unexpected[kind];
      if (statuses.length > 0) {
        problems.push(
          `${label}: ${String(statuses.length)} ${kind} requests answered ${[...new Set(statuses)].join(', ')}, not ${String(r.expected)}`,
        );
      }
    }
  }
  for (const problem of problems) progress(`FAIL: ${problem}`);
  return problems.length === 0 ? 0 : 1;
}

await runBench(main);
