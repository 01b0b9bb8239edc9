/**
 * `npm run bench`: what `POST /functions/v1/brand-agent` costs (valid key, the demo brand with its 20
 * knowledge entries) against a bare `node:http` server returning the same bytes, measured in the same run
 * with the same autocannon settings. The servers are separate child processes; autocannon runs here.
 * Two formats are measured, each against its own baseline serving that format's bytes: the whole brand as
 * JSON (the operation's usual body, no option) and as Markdown (`"format":"markdown"`).
 *
 * Client and servers share the machine's cores, so req/s ratios move with the load shape; the steadier figure
 * is what each server spends: its CPU time per request (user + system, every thread, read from /proc over
 * the measured rounds). Targets, on both backends: the service's CPU per request at most 1.3 times the
 * baseline's, and its req/s at least 0.70 of the baseline's at 10 connections. The service runs with the
 * per-credential read limit on (out of reach), so its cost is measured; for the JSON view a second service
 * with METRICS=off is measured too, and the cost of counting (CPU per request and req/s, on against off) is
 * reported against its 3 % target. For each format, after a discarded warm-up of every target, the targets
 * are measured in rounds, each pass starting one target further along (A B C, B C A, C A B, A B C with 4
 * rounds), so that background load drifting during the run weighs on all alike and no target always follows
 * the same one; each round starts with a short discarded warm-up of its own. The rounds are shared among
 * fresh processes of every server (BENCH_PROCESSES): two processes of the same build differ by up to 20 % in
 * CPU per request, which one process alone would report as the code's cost.
 *
 * Beside the JSON read, the same service is measured answering a pinned read of the same brand: the body adds
 * `"version": n`, the version the brand is at (docs/brand-versions.md "Pinned reads"), so the bytes are the
 * same and only the path differs (the body's full parse, the pinned versions' cache). It has no target of its
 * own; what it shows is that the latest read, measured beside it, did not get slower.
 *
 * Beside the Markdown read, the same service is measured answering the MCP tool call that AI clients make for
 * the same brand over remote MCP: `tools/call get_brand_context` on `POST /mcp` with the brand read key
 * (docs/mcp.md "Remote MCP"), stateless, as every call of a remote client arrives: its req/s and its CPU per
 * call, against the read operation's. It has no target of its own.
 *
 * Environment:
 *   BENCH_DURATION       measured seconds per target and format (default 5), run in BENCH_ROUNDS rounds
 *   BENCH_ROUNDS         rounds per target and format (default 4, even): more, shorter rounds interleave the
 *                        targets more finely, which matters most for the few % that metrics cost
 *   BENCH_PROCESSES      processes of each server per backend, the rounds shared among them (default 4, a
 *                        round each; must divide BENCH_ROUNDS); each is warmed up on its own
 *   BENCH_WARMUP         warm-up seconds per target and format (default 3: a service measured after 1 s of load
 *                        still spent 10-30 % more CPU per request than it did a few seconds later, while V8
 *                        finished optimizing and sizing its heap; a server in service has long been warm)
 *   BENCH_CONNECTIONS    concurrent connections (default 10)
 *   BENCH_MAX_CPU_RATIO  ceiling for service/baseline CPU per request, either view, either backend (default:
 *                        the 1.3 target); above it, exit 1. CI sets it above the target by a noise margin
 *   BENCH_MIN_RATIO      floor for service/baseline req/s of the JSON view, either backend (default: the 0.70
 *                        target); below it, exit 1
 *   BENCH_MIN_RATIO_MARKDOWN  the same for the Markdown view (default: BENCH_MIN_RATIO). Its ratio is
 *                        structurally lower: the service's fixed cost per request is the same while the
 *                        baseline sends 55 % of the bytes, so the baseline gains more than the service
 *   BENCH_MAX_METRICS_OVERHEAD  ceiling for the extra CPU per request that counting costs, in % (default:
 *                        none, only the 3 % target is reported)
 *   BENCH_DATABASE_URL   postgres://… admin URL: also measure on PostgreSQL, in a scratch database created
 *                        (and dropped WITH (FORCE)) for this run
 *
 * The service runs as built (`npm run build`, done by `prebench`) with logging at its default level,
 * written to a file in the run's temp dir. Latency percentiles come from every response's own timing
 * (autocannon's histogram rounds to whole milliseconds). The CPU% columns (Linux) say how much of a core
 * the server and everything else used while measured: on a busy machine the figures are flagged.
 */
import { closeSync, createReadStream, existsSync, openSync } from 'node:fs';
import { mkdtemp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import ts from 'typescript';
import { z } from 'zod';
import { type BrandFormat, VIEW_CONTENT_TYPES } from '../src/core/brand-views.js';
import {
  BenchError,
  type Child,
  childEnv,
  CLI,
  cleanups,
  createScratchDatabase,
  describe,
  fixed,
  formatTable,
  DELIVERY_WORKERS,
  Latencies,
  type Memory,
  memoryOf,
  numberFromEnv,
  progress,
  READY_TIMEOUT_MS,
  ROOT,
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
  withTimeout,
} from './harness.js';

const BASELINE_SOURCE = join(ROOT, 'bench', 'baseline-server.ts');
const OPERATION_PATH = '/functions/v1/brand-agent';
/** Remote MCP's endpoint, measured beside the read operation in Markdown. */
const MCP_PATH = '/mcp';
/** The protocol version the MCP tool call speaks (a 2025-era client, stateless). */
const MCP_PROTOCOL_VERSION = '2025-11-25';
/** Above this much CPU (% of one core) used by other processes during a measurement, the run is flagged. */
const BUSY_MACHINE_PCT = 25;
/** Targets, always reported: service/baseline req/s at least this, on both backends. */
const TARGET_RATIO = 0.7;
/** ...and the service's CPU time per request at most this many times the baseline's. */
const TARGET_CPU_RATIO = 1.3;
/** What counting (GET /metrics) may cost the read operation, in % of its CPU per request and of its req/s. */
const TARGET_METRICS_OVERHEAD_PCT = 3;
/**
 * The read limit the service runs with: on, so that its cost is measured, and out of reach of the run
 * (the default, 6000/60s, would answer 429 within a second at this load).
 */
const UNREACHABLE_READ_LIMIT = '1000000000/1h';
/** The discarded warm-up of every measured round, in seconds. */
const ROUND_WARMUP_S = 0.3;
/** Headers of the operation's response that the baseline repeats verbatim (the key's expiry included). */
const REPLAYED_HEADERS = [
  'content-type',
  'etag',
  'cache-control',
  'x-request-id',
  'brand-key-expires',
  'brand-version',
] as const;
/** ...and these where the service sends them: the read limit's (docs/reading-brand-context.md "Errors"), so both send as many bytes. */
const REPLAYED_IF_SENT = ['ratelimit-policy', 'ratelimit'] as const;
/** The formats measured, each against a baseline serving its bytes. */
const FORMATS = ['json', 'markdown'] as const satisfies readonly BrandFormat[];
type Format = (typeof FORMATS)[number];
/** Entries of the demo brand's knowledge section, which every format is checked to carry. */
const DEMO_KNOWLEDGE_ENTRIES = 20;

// ---------------------------------------------------------------------------------------------- settings

interface Settings {
  durationS: number;
  rounds: number;
  warmupS: number;
  processes: number;
  connections: number;
  minRatio: number;
  minMarkdownRatio: number;
  maxCpuRatio: number;
  maxMetricsOverheadPct: number | undefined;
  postgresAdminUrl: string | undefined;
}

function loadSettings(): Settings {
  const postgresAdminUrl = process.env.BENCH_DATABASE_URL?.trim() || undefined;
  const minRatio = numberFromEnv('BENCH_MIN_RATIO', TARGET_RATIO, (v) => v >= 0, 'a number >= 0');
  if (postgresAdminUrl !== undefined && !/^postgres(ql)?:\/\//.test(postgresAdminUrl)) {
    throw new BenchError('BENCH_DATABASE_URL must be a postgres:// URL');
  }
  const rounds = numberFromEnv(
    'BENCH_ROUNDS',
    4,
    (v) => Number.isInteger(v) && v >= 2 && v % 2 === 0,
    'an even whole number >= 2',
  );
  const processes = numberFromEnv(
    'BENCH_PROCESSES',
    4,
    (v) => Number.isInteger(v) && v >= 1 && rounds % v === 0,
    `a whole number >= 1 that divides BENCH_ROUNDS (${rounds})`,
  );
  return {
    durationS: numberFromEnv(
      'BENCH_DURATION',
      5,
      (v) => Number.isInteger(v) && v >= 1,
      'a whole number of seconds >= 1',
    ),
    rounds,
    warmupS: numberFromEnv(
      'BENCH_WARMUP',
      3,
      (v) => Number.isInteger(v) && v >= 0,
      'a whole number of seconds >= 0',
    ),
    processes,
    connections: numberFromEnv(
      'BENCH_CONNECTIONS',
      10,
      (v) => Number.isInteger(v) && v >= 1,
      'an integer >= 1',
    ),
    minRatio,
    minMarkdownRatio: numberFromEnv('BENCH_MIN_RATIO_MARKDOWN', minRatio, (v) => v >= 0, 'a number >= 0'),
    maxCpuRatio: numberFromEnv('BENCH_MAX_CPU_RATIO', TARGET_CPU_RATIO, (v) => v > 0, 'a number > 0'),
    maxMetricsOverheadPct: process.env.BENCH_MAX_METRICS_OVERHEAD?.trim()
      ? numberFromEnv('BENCH_MAX_METRICS_OVERHEAD', 0, () => true, 'a number (%)')
      : undefined,
    postgresAdminUrl,
  };
}

async function startBaseline(dir: string, script: string, format: Format, answer: Answer): Promise<Server> {
  const bodyPath = join(dir, `baseline-body.${format}`);
  await writeFile(bodyPath, answer.body);
  const stderrPath = join(dir, `baseline-${format}.stderr.log`);
  const err = openSync(stderrPath, 'w');
  let child: Child;
  try {
    child = spawnNode(
      `baseline (${format})`,
      [script, bodyPath, JSON.stringify(answer.headers)],
      childEnv({}),
      ['ignore', 'pipe', err],
    );
  } finally {
    closeSync(err);
  }
  const stdout = child.process.stdout;
  if (stdout === null) throw new BenchError('baseline has no stdout');
  const lines = createInterface({ input: stdout });
  const firstLine = new Promise<string | undefined>((resolveLine) => {
    lines.once('line', resolveLine);
    lines.once('close', () => {
      resolveLine(undefined);
    });
  });
  const line = await withTimeout(firstLine, READY_TIMEOUT_MS, undefined);
  const port =
    line === undefined
      ? undefined
      : z.object({ port: z.number().int().positive() }).safeParse(JSON.parse(line));
  if (!port?.success) throw new BenchError(`the baseline server did not start:\n${await tail(stderrPath)}`);
  return { child, baseUrl: `http://127.0.0.1:${port.data.port}` };
}

/** `bench/baseline-server.ts` as plain JavaScript, so the baseline runs on bare `node` (no TS loader). */
async function compileBaseline(dir: string): Promise<string> {
  const source = await readFile(BASELINE_SOURCE, 'utf8');
  const output = ts.transpileModule(source, {
    fileName: BASELINE_SOURCE,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false },
  });
  const script = join(dir, 'baseline-server.mjs');
  await writeFile(script, output.outputText);
  return script;
}

// --------------------------------------------------------------------------------------------- measuring

interface Operation {
  /** Where it is sent: the read operation, or /mcp. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What the service answered, as the baseline replays it. */
interface Answer {
  body: Buffer;
  headers: Record<string, string>;
}

interface Measurement {
  rps: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerResponse: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** The server's CPU time (user + system, all threads) per response, in µs; NaN where there is no /proc. */
  cpuUsPerRequest: number;
  cpu: CpuUse | undefined;
}

/** Where the CPU went while a target was measured, in % of one core: the server, this process, the rest. */
interface CpuUse {
  serverPct: number;
  benchPct: number;
  /** Everything else on the machine: other processes and kernel work not charged to ours. */
  otherPct: number;
}

interface CpuSnapshot {
  busy: number;
  total: number;
  server: number;
  bench: number;
  /** The server's CPU time in ns: precise where the kernel keeps schedstat, else its ticks. */
  serverNs: number;
}

/** /proc's clock tick (USER_HZ), which Linux fixes at 100 a second whatever the kernel's own tick. */
const NS_PER_TICK = 10_000_000;

/** utime + stime of a process, in clock ticks (field 14 and 15 of /proc/<pid>/stat). */
async function processTicks(pid: number | 'self'): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * A process's CPU time in ns, summed over its threads' schedstat (time on a CPU, exact), or undefined
 * without schedstat. Ticks alone are 10 ms each: too coarse for a few seconds' rounds.
 */
async function processCpuNs(pid: number): Promise<number | undefined> {
  try {
    let ns = 0;
    for (const thread of await readdir(`/proc/${pid}/task`)) {
      const schedstat = await readFile(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').catch(() => '0');
      ns += Number(schedstat.split(' ')[0]);
    }
    return Number.isFinite(ns) && ns > 0 ? ns : undefined;
  } catch {
    return undefined;
  }
}

/** Machine-wide and per-process CPU ticks; undefined where there is no /proc (not Linux). */
async function cpuSnapshot(serverPid: number): Promise<CpuSnapshot | undefined> {
  try {
    const [line = ''] = (await readFile('/proc/stat', 'utf8')).split('\n');
    // user nice system idle iowait irq softirq steal (guest time is already counted in user)
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const total = user + nice + system + idle + iowait + irq + softirq + steal;
    const server = await processTicks(serverPid);
    return {
      busy: total - idle - iowait,
      total,
      server,
      bench: await processTicks('self'),
      serverNs: (await processCpuNs(serverPid)) ?? server * NS_PER_TICK,
    };
  } catch {
    return undefined;
  }
}

/**
 * One target's measured rounds, added up over its processes: responses over the rounds' total duration,
 * percentiles over every response of every round, CPU time over all rounds, and the largest RSS.
 */
class TargetRuns {
  private readonly latencies = new Latencies();
  private responses = 0;
  private bytes = 0;
  private seconds = 0;
  private non2xx = 0;
  private errors = 0;
  private timeouts = 0;
  private cpu:
    { coreTicks: number; server: number; bench: number; other: number; serverNs: number } | undefined = {
    coreTicks: 0,
    server: 0,
    bench: 0,
    other: 0,
    serverNs: 0,
  };
  private memory: Memory | undefined;

  recordLatency(ms: number): void {
    this.latencies.add(ms);
  }

  recordRun(
    result: autocannon.Result,
    before: CpuSnapshot | undefined,
    after: CpuSnapshot | undefined,
  ): void {
    const responses = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
    this.responses += responses;
    this.bytes += result.throughput.total;
    this.seconds += result.duration;
    this.non2xx += result.non2xx;
    this.errors += result.errors;
    this.timeouts += result.timeouts;
    if (before === undefined || after === undefined || this.cpu === undefined) {
      this.cpu = undefined;
      return;
    }
    const server = after.server - before.server;
    const bench = after.bench - before.bench;
    this.cpu.coreTicks += (after.total - before.total) / cpus().length;
    this.cpu.server += server;
    this.cpu.bench += bench;
    this.cpu.other += Math.max(0, after.busy - before.busy - server - bench);
    this.cpu.serverNs += after.serverNs - before.serverNs;
  }

  /** Notes a process's memory once its rounds are over: the largest is the target's figure. */
  recordMemory(memory: Memory | undefined): void {
    if (memory !== undefined && (this.memory === undefined || memory.rssMb > this.memory.rssMb))
      this.memory = memory;
  }

  result(): TargetResult {
    return { measurement: this.measurement(), memory: this.memory };
  }

  private measurement(): Measurement {
    const [p50 = Number.NaN, p99 = Number.NaN] = this.latencies.percentiles(50, 99);
    const cpu = this.cpu;
    const pct = (ticks: number) =>
      cpu === undefined || cpu.coreTicks <= 0 ? Number.NaN : (100 * ticks) / cpu.coreTicks;
    return {
      rps: this.seconds > 0 ? this.responses / this.seconds : Number.NaN,
      requests: this.responses,
      p50Ms: p50,
      p99Ms: p99,
      bytesPerResponse: this.responses === 0 ? 0 : this.bytes / this.responses,
      non2xx: this.non2xx,
      errors: this.errors,
      timeouts: this.timeouts,
      cpuUsPerRequest:
        cpu === undefined || this.responses === 0 ? Number.NaN : cpu.serverNs / 1000 / this.responses,
      cpu: cpu && { serverPct: pct(cpu.server), benchPct: pct(cpu.bench), otherPct: pct(cpu.other) },
    };
  }
}

/** One autocannon run against `server`; recorded into `target`, or discarded (a warm-up) without one. */
async function cannon(
  server: Server,
  target: TargetRuns | undefined,
  operation: Operation,
  connections: number,
  durationS: number,
): Promise<void> {
  const pid = server.child.pid;
  const before = target ? await cpuSnapshot(pid) : undefined;
  const result = await new Promise<autocannon.Result>((resolveRun, reject) => {
    const instance = autocannon(
      {
        url: `${server.baseUrl}${operation.path}`,
        method: 'POST',
        headers: operation.headers,
        body: operation.body,
        connections,
        duration: durationS,
        sampleInt: SAMPLE_INTERVAL_MS,
      },
      (error: unknown, done: autocannon.Result) => {
        if (error !== null && error !== undefined)
          reject(error instanceof Error ? error : new BenchError(describe(error)));
        else resolveRun(done);
      },
    );
    if (target) {
      instance.on('response', (_client, _status, _bytes, responseTime) => {
        target.recordLatency(responseTime);
      });
    }
  });
  if (target) target.recordRun(result, before, await cpuSnapshot(pid));
}

async function countLines(path: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(path)) {
    const buffer = chunk as Buffer;
    for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) lines++;
  }
  return lines;
}

/**
 * The servers measured: the bare baseline, the service, (JSON view) the service with METRICS=off, and
 * (Markdown view) the service answering the same brand as an MCP tool call.
 */
const TARGETS = ['baseline', 'service', 'pinned', 'metricsOff', 'mcp'] as const;
type TargetName = (typeof TARGETS)[number];
const TARGET_LABELS: Record<TargetName, string> = {
  baseline: 'baseline node:http',
  service: 'service',
  pinned: 'service pinned version',
  metricsOff: 'service METRICS=off',
  mcp: 'service /mcp tools/call',
};

interface TargetResult {
  measurement: Measurement;
  memory: Memory | undefined;
}

interface FormatResult {
  format: Format;
  responseBytes: number;
  contentType: string;
  targets: {
    baseline: TargetResult;
    service: TargetResult;
    pinned?: TargetResult;
    metricsOff?: TargetResult;
    mcp?: TargetResult;
  };
}

interface BackendResult {
  backend: 'sqlite' | 'postgres';
  formats: FormatResult[];
  logLines: number;
  logBytes: number;
  /** Why the METRICS=off service was not measured, if it was not. */
  metricsOffSkipped: string | undefined;
}

/** The services of a backend: the one measured in every format, and the one without metrics, if built. */
interface Services {
  service: Server;
  metricsOff: Server | undefined;
}

/** The demo brand read in `format`; JSON sends no option, as most callers do (the whole brand's fast path). */
function operationFor(format: Format, demo: Seed): Operation {
  const options = format === 'json' ? {} : { format };
  return {
    path: OPERATION_PATH,
    headers: { authorization: `Bearer ${demo.brand_read_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'context', workspace_id: demo.workspace_id, ...options }),
  };
}

/** The same read as `operation`, pinned to `version` (the one the brand is at: the same bytes). */
function pinnedOperation(operation: Operation, version: number): Operation {
  const body = JSON.parse(operation.body) as Record<string, unknown>;
  return { ...operation, body: JSON.stringify({ ...body, version }) };
}

/**
 * `tools/call get_brand_context` over /mcp with the brand read key, as a remote MCP client sends it: no
 * session (the endpoint is stateless), the key's workspace the default, Markdown the tool's default format.
 */
function mcpToolCall(demo: Seed): Operation {
  return {
    path: MCP_PATH,
    headers: {
      authorization: `Bearer ${demo.brand_read_key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MCP_PROTOCOL_VERSION,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_brand_context', arguments: {} },
    }),
  };
}

/** The tool call's answer, checked before it is measured: a 200 carrying the brand's Markdown, no tool error. */
async function checkMcpAnswer(label: string, service: Server, call: Operation): Promise<void> {
  const answer = await send(`${service.baseUrl}${call.path}`, { method: 'POST', ...call });
  const text = answer.body.toString('utf8');
  if (answer.status !== 200 || text.includes('"isError":true') || !text.includes('# ')) {
    throw new BenchError(
      `${label}: tools/call get_brand_context over ${MCP_PATH} answered ${answer.status}: ${text.slice(0, 500)}`,
    );
  }
}

/** The knowledge entries an answer carries: the JSON array's length, or the Markdown section's bullets. */
function knowledgeEntries(format: Format, text: string): number | undefined {
  if (format === 'json') {
    const parsed = z.object({ knowledge: z.array(z.unknown()) }).safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.knowledge.length : undefined;
  }
  const section = text.split(/^## /m).find((part) => part.startsWith('Knowledge\n'));
  return section?.split('\n').filter((line) => line.startsWith('- ')).length;
}

/**
 * The service's answer to `operation`, checked before anything is measured: a 200 in the format asked for
 * (its content type, the demo brand's knowledge in it), so that a request the service answered otherwise
 * (an error, JSON for Markdown) is never what gets measured.
 */
async function serviceAnswer(
  label: string,
  format: Format,
  service: Server,
  operation: Operation,
): Promise<Answer> {
  const first = await send(`${service.baseUrl}${OPERATION_PATH}`, { method: 'POST', ...operation });
  if (first.status !== 200) {
    throw new BenchError(
      `${label}: the operation answered ${first.status}, expected 200: ${first.body.toString('utf8').slice(0, 500)}`,
    );
  }
  const contentType = first.headers['content-type'];
  if (contentType !== VIEW_CONTENT_TYPES[format]) {
    throw new BenchError(
      `${label}: the operation answered ${contentType ?? 'no content type'}, expected ${VIEW_CONTENT_TYPES[format]}`,
    );
  }
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = first.headers[name];
    if (typeof value !== 'string')
      throw new BenchError(`${label}: the operation's response has no ${name} header`);
    headers[name] = value;
  }
  for (const name of REPLAYED_IF_SENT) {
    const value = first.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  if (knowledgeEntries(format, first.body.toString('utf8')) !== DEMO_KNOWLEDGE_ENTRIES) {
    progress(
      `${label}: warning: expected the demo brand's ${DEMO_KNOWLEDGE_ENTRIES} knowledge entries in the response`,
    );
  }
  return { body: first.body, headers };
}

/** One format over the processes: what the service answered, and each measured target's rounds, added up. */
interface FormatRuns {
  format: Format;
  answer: Answer | undefined;
  targets: Partial<Record<TargetName, TargetRuns>>;
}

/**
 * One format on process `index` (from 0) of each server: its own baseline, a warm-up of every target, then
 * this process's share of the rounds, recorded into `runs`.
 */
async function benchFormat(
  label: string,
  services: Services,
  demo: Seed,
  dir: string,
  baselineScript: string,
  settings: Settings,
  runs: FormatRuns,
  index: number,
): Promise<void> {
  const { format } = runs;
  const operation = operationFor(format, demo);
  const answer = await serviceAnswer(label, format, services.service, operation);
  if (runs.answer !== undefined && !runs.answer.body.equals(answer.body))
    throw new BenchError(`${label}: the service answers other bytes than its first process did`);
  runs.answer = answer;
  // Counting is measured on the JSON view, the operation's usual answer: the Markdown one runs the same path.
  const metricsOff = format === 'json' ? services.metricsOff : undefined;
  if (metricsOff !== undefined) {
    const other = await serviceAnswer(`${label} METRICS=off`, format, metricsOff, operation);
    if (!other.body.equals(answer.body))
      throw new BenchError(`${label}: the service with METRICS=off answers other bytes`);
  }
  const baseline = await startBaseline(dir, baselineScript, format, answer);
  const check = await send(`${baseline.baseUrl}${OPERATION_PATH}`, { method: 'POST', ...operation });
  if (check.status !== 200 || !check.body.equals(answer.body))
    throw new BenchError(`${label}: the baseline does not return the same bytes`);
  progress(
    `${label}: baseline ready at ${baseline.baseUrl} (pid ${baseline.child.pid}), ${answer.body.length} body bytes each`,
  );

  // A pinned read is measured beside the JSON read, pinned to the version it answers: the same bytes.
  const pinned =
    format === 'json' ? pinnedOperation(operation, Number(answer.headers['brand-version'])) : undefined;
  if (pinned !== undefined) {
    const same = await serviceAnswer(`${label} pinned`, format, services.service, pinned);
    if (!same.body.equals(answer.body))
      throw new BenchError(`${label}: the pinned read answers other bytes than the latest`);
  }
  // The MCP tool call answers the Markdown view: it is measured beside the read of the same bytes.
  const mcpCall = format === 'markdown' ? mcpToolCall(demo) : undefined;
  if (mcpCall !== undefined) await checkMcpAnswer(label, services.service, mcpCall);
  const servers: [TargetName, Server, Operation][] = [
    ['baseline', baseline, operation],
    ['service', services.service, operation],
    ...(pinned === undefined
      ? []
      : [['pinned', services.service, pinned] as [TargetName, Server, Operation]]),
    ...(metricsOff === undefined
      ? []
      : [['metricsOff', metricsOff, operation] as [TargetName, Server, Operation]]),
    ...(mcpCall === undefined ? [] : [['mcp', services.service, mcpCall] as [TargetName, Server, Operation]]),
  ];
  const names = servers.map(([name]) => TARGET_LABELS[name]).join(', ');
  const { connections, durationS, warmupS, rounds, processes } = settings;
  if (warmupS > 0) {
    progress(`${label}: warm-up ${warmupS} s each (discarded): ${names}`);
    for (const [, server, sent] of servers) await cannon(server, undefined, sent, connections, warmupS);
  }
  // Each pass starts one target further along (A B C, B C A, C A B, …): a drift in the machine's background load
  // weighs on every target alike, and no target always follows the same one. (With A B C C B A, a twin of the
  // service measured as C came out 25-35 % cheaper per request than the service itself, always as B.) Each
  // round starts with a short discarded warm-up, so that no server is measured cold from sitting idle.
  const passes = rounds / processes;
  progress(
    `${label}: measuring ${passes} rounds of ${durationS / rounds} s each, each from the next target: ${names}`,
  );
  const measured = servers.map(([name, server, sent]) => ({
    server,
    sent,
    target: (runs.targets[name] ??= new TargetRuns()),
  }));
  for (let pass = index * passes; pass < (index + 1) * passes; pass++) {
    const first = pass % measured.length;
    for (const { server, sent, target } of [...measured.slice(first), ...measured.slice(0, first)]) {
      await cannon(server, undefined, sent, connections, ROUND_WARMUP_S);
      await cannon(server, target, sent, connections, durationS / rounds);
    }
  }
  for (const { server, target } of measured) target.recordMemory(await memoryOf(server.child.pid));
  await baseline.child.stop();
}

/**
 * The service with METRICS=off beside the measured one, when this build has metrics: undefined and why not
 * otherwise (no GET /metrics, or METRICS=off left it in place).
 */
async function startMetricsOff(
  dir: string,
  databaseUrl: string,
  service: Server,
  name: string,
): Promise<{ server: Server | undefined; skipped: string | undefined }> {
  const metrics = await send(`${service.baseUrl}/metrics`);
  if (metrics.status === 404) return { server: undefined, skipped: 'this build has no GET /metrics' };
  const server = await startService(
    dir,
    databaseUrl,
    { RATE_LIMIT_READS: UNREACHABLE_READ_LIMIT, METRICS: 'off' },
    name,
  );
  if ((await send(`${server.baseUrl}/metrics`)).status !== 404) {
    await server.child.stop();
    return { server: undefined, skipped: 'METRICS=off still serves GET /metrics in this build' };
  }
  return { server, skipped: undefined };
}

/**
 * One backend: BENCH_PROCESSES times, a fresh service (and one with METRICS=off) measured in every format
 * beside a fresh baseline, each process taking its share of the rounds. Two processes of the same build
 * differ by up to 20 % in CPU per request (the same system calls and the same functions in their profiles,
 * the time spread otherwise), so one process's figure says as much about its luck as about the code.
 */
async function benchBackend(
  backend: BackendResult['backend'],
  databaseUrl: string,
  dir: string,
  baselineScript: string,
  settings: Settings,
): Promise<BackendResult> {
  await mkdir(dir, { recursive: true });
  progress(`${backend}: seeding the demo workspace`);
  const demo = await seed(databaseUrl);
  const runs = FORMATS.map((format): FormatRuns => ({ format, answer: undefined, targets: {} }));
  let logLines = 0;
  let logBytes = 0;
  let metricsOffSkipped: string | undefined;
  for (let index = 0; index < settings.processes; index++) {
    const of = settings.processes > 1 ? ` (process ${index + 1} of ${settings.processes})` : '';
    const service = await startService(
      dir,
      databaseUrl,
      { RATE_LIMIT_READS: UNREACHABLE_READ_LIMIT },
      `service-${index + 1}`,
    );
    progress(
      `${backend}: service${of} ready at ${service.baseUrl} (pid ${service.child.pid}, delivery worker on with DELIVERY_WORKERS=${DELIVERY_WORKERS}, RATE_LIMIT_READS=${UNREACHABLE_READ_LIMIT}, logs in ${service.logPath})`,
    );
    const metricsOff = await startMetricsOff(dir, databaseUrl, service, `service-metrics-off-${index + 1}`);
    metricsOffSkipped = metricsOff.skipped;
    if (metricsOff.server)
      progress(`${backend}: service with METRICS=off ready at ${metricsOff.server.baseUrl}`);
    else progress(`${backend}: the cost of metrics is not measured: ${metricsOff.skipped}`);

    for (const formatRuns of runs) {
      await benchFormat(
        `${backend} ${formatRuns.format}${of}`,
        { service, metricsOff: metricsOff.server },
        demo,
        dir,
        baselineScript,
        settings,
        formatRuns,
        index,
      );
    }

    await metricsOff.server?.child.stop();
    await service.child.stop();
    const { exitCode, signalCode } = service.child.process;
    if (exitCode !== 0) {
      progress(
        `${backend}: warning: the service did not exit cleanly on SIGTERM (${exitCode ?? signalCode ?? '?'})`,
      );
    }
    logBytes += (await stat(service.logPath)).size;
    logLines += await countLines(service.logPath);
  }

  const formats = runs.map(({ format, answer, targets }): FormatResult => {
    const { baseline, service, pinned, metricsOff, mcp } = targets;
    if (answer === undefined || baseline === undefined || service === undefined)
      throw new BenchError(`${backend} ${format}: a target was not measured`);
    return {
      format,
      responseBytes: answer.body.length,
      contentType: answer.headers['content-type'] ?? '',
      targets: {
        baseline: baseline.result(),
        service: service.result(),
        ...(pinned && { pinned: pinned.result() }),
        ...(metricsOff && { metricsOff: metricsOff.result() }),
        ...(mcp && { mcp: mcp.result() }),
      },
    };
  });
  return { backend, formats, logLines, logBytes, metricsOffSkipped };
}

// ---------------------------------------------------------------------------------------------- printing

const ratioOf = (result: FormatResult) =>
  result.targets.service.measurement.rps / result.targets.baseline.measurement.rps;
const cpuRatioOf = (result: FormatResult) =>
  result.targets.service.measurement.cpuUsPerRequest / result.targets.baseline.measurement.cpuUsPerRequest;

/** What counting costs, in %: extra CPU per request and lost req/s, with metrics on against off. */
function metricsOverhead(result: FormatResult): { cpuPct: number; rpsPct: number } | undefined {
  const off = result.targets.metricsOff?.measurement;
  if (off === undefined) return undefined;
  const on = result.targets.service.measurement;
  return {
    cpuPct: 100 * (on.cpuUsPerRequest / off.cpuUsPerRequest - 1),
    rpsPct: 100 * (1 - on.rps / off.rps),
  };
}

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

function targetsOf(format: FormatResult): [TargetName, TargetResult][] {
  return TARGETS.flatMap((name) => {
    const result = format.targets[name];
    return result === undefined ? [] : [[name, result] as [TargetName, TargetResult]];
  });
}

/** Every target of every format on every backend, a row each. */
function measurementsTable(results: BackendResult[]): string {
  const headers = [
    'backend',
    'format',
    'target',
    'req/s',
    'CPU µs/req',
    'p50 ms',
    'p99 ms',
    'RSS MB',
    'peak RSS MB',
    'bytes/resp',
    'requests',
    'server CPU%',
    'other CPU%',
  ];
  const rows: string[][] = [];
  for (const result of results) {
    for (const format of result.formats) {
      for (const [name, { measurement: m, memory }] of targetsOf(format)) {
        rows.push([
          result.backend,
          format.format,
          TARGET_LABELS[name],
          fixed(m.rps, 0),
          fixed(m.cpuUsPerRequest, 1),
          fixed(m.p50Ms, 2),
          fixed(m.p99Ms, 2),
          memory ? fixed(memory.rssMb, 1) : 'n/a',
          memory ? fixed(memory.peakMb, 1) : 'n/a',
          fixed(m.bytesPerResponse, 0),
          String(m.requests),
          m.cpu ? fixed(m.cpu.serverPct, 0) : 'n/a',
          m.cpu ? fixed(m.cpu.otherPct, 0) : 'n/a',
        ]);
      }
    }
  }
  return formatTable(headers, rows, 3);
}

/** Service against baseline, a row per backend and format, each figure beside its target's verdict. */
function ratiosTable(results: BackendResult[]): string {
  const rows = results.flatMap((result) =>
    result.formats.map((format) => {
      const cpu = cpuRatioOf(format);
      const rps = ratioOf(format);
      return [
        result.backend,
        format.format,
        fixed(cpu, 3),
        verdict(cpu <= TARGET_CPU_RATIO),
        fixed(rps, 3),
        verdict(rps >= TARGET_RATIO),
      ];
    }),
  );
  return formatTable(
    [
      'backend',
      'format',
      'CPU/req service/baseline',
      `<= ${TARGET_CPU_RATIO}`,
      'req/s service/baseline',
      `>= ${TARGET_RATIO}`,
    ],
    rows,
    2,
  );
}

/** The cost of counting per backend (JSON view), or why it was not measured. */
function metricsLines(results: BackendResult[]): string[] {
  return results.map((result) => {
    const json = result.formats.find((format) => format.format === 'json');
    const overhead = json && metricsOverhead(json);
    if (overhead === undefined)
      return `${result.backend}: metrics overhead not measured: ${result.metricsOffSkipped ?? 'no JSON view'}`;
    const met =
      overhead.cpuPct <= TARGET_METRICS_OVERHEAD_PCT && overhead.rpsPct <= TARGET_METRICS_OVERHEAD_PCT;
    return (
      `${result.backend}: metrics overhead (json, on against METRICS=off): CPU per request ${signed(overhead.cpuPct)} %, ` +
      `req/s ${signed(-overhead.rpsPct)} %; target at most ${TARGET_METRICS_OVERHEAD_PCT} % of either: ${verdict(met)}`
    );
  });
}

const signed = (value: number) => (value >= 0 ? `+${fixed(value, 1)}` : fixed(value, 1));

/** The MCP tool call per backend, beside the read operation of the same Markdown. */
function mcpLines(results: BackendResult[]): string[] {
  return results.flatMap((result) =>
    result.formats.flatMap((format) => {
      const mcp = format.targets.mcp?.measurement;
      if (mcp === undefined) return [];
      const read = format.targets.service.measurement;
      return [
        `${result.backend}: tools/call get_brand_context over ${MCP_PATH} (brand read key, Markdown): ` +
          `${fixed(mcp.rps, 0)} req/s, ${fixed(mcp.cpuUsPerRequest, 1)} CPU µs per call; the read operation ` +
          `in Markdown ${fixed(read.rps, 0)} req/s, ${fixed(read.cpuUsPerRequest, 1)} µs per read ` +
          `(the call costs ${fixed(mcp.cpuUsPerRequest / read.cpuUsPerRequest, 2)} times the read's CPU)`,
      ];
    }),
  );
}

/** The pinned read per backend, beside the latest read of the same bytes. */
function pinnedLines(results: BackendResult[]): string[] {
  return results.flatMap((result) =>
    result.formats.flatMap((format) => {
      const pinned = format.targets.pinned?.measurement;
      if (pinned === undefined) return [];
      const read = format.targets.service.measurement;
      return [
        `${result.backend}: pinned read ("version": the latest's, ${format.format}): ` +
          `${fixed(pinned.rps, 0)} req/s, ${fixed(pinned.cpuUsPerRequest, 1)} CPU µs per read, p50 ${fixed(pinned.p50Ms, 2)} ms; ` +
          `the latest read ${fixed(read.rps, 0)} req/s, ${fixed(read.cpuUsPerRequest, 1)} µs per read, p50 ${fixed(read.p50Ms, 2)} ms ` +
          `(the pinned read costs ${fixed(pinned.cpuUsPerRequest / read.cpuUsPerRequest, 2)} times the latest's CPU)`,
      ];
    }),
  );
}

/** The most CPU that anything but the servers and this process used during a backend's measured runs. */
function otherCpu(result: BackendResult): number {
  const uses = result.formats.flatMap((format) =>
    targetsOf(format).map(([, target]) => target.measurement.cpu?.otherPct ?? Number.NaN),
  );
  return Math.max(...uses);
}

function jsonLines(result: BackendResult): string[] {
  return result.formats.map((measured) => {
    const { baseline, service, pinned, metricsOff, mcp } = measured.targets;
    const overhead = metricsOverhead(measured);
    return JSON.stringify({
      bench: 'brand-agent',
      backend: result.backend,
      format: measured.format,
      response_bytes: measured.responseBytes,
      service_rps: round(service.measurement.rps, 1),
      baseline_rps: round(baseline.measurement.rps, 1),
      ratio: round(ratioOf(measured), 3),
      service_cpu_us_per_req: round(service.measurement.cpuUsPerRequest, 2),
      baseline_cpu_us_per_req: round(baseline.measurement.cpuUsPerRequest, 2),
      cpu_ratio: round(cpuRatioOf(measured), 3),
      service_p50_ms: round(service.measurement.p50Ms, 3),
      service_p99_ms: round(service.measurement.p99Ms, 3),
      service_rss_mb: service.memory ? round(service.memory.rssMb, 1) : null,
      service_peak_rss_mb: service.memory ? round(service.memory.peakMb, 1) : null,
      baseline_p50_ms: round(baseline.measurement.p50Ms, 3),
      baseline_p99_ms: round(baseline.measurement.p99Ms, 3),
      baseline_rss_mb: baseline.memory ? round(baseline.memory.rssMb, 1) : null,
      ...(metricsOff &&
        overhead && {
          metrics_off_rps: round(metricsOff.measurement.rps, 1),
          metrics_off_cpu_us_per_req: round(metricsOff.measurement.cpuUsPerRequest, 2),
          metrics_cpu_overhead_pct: round(overhead.cpuPct, 2),
          metrics_rps_overhead_pct: round(overhead.rpsPct, 2),
        }),
      ...(pinned && {
        pinned_rps: round(pinned.measurement.rps, 1),
        pinned_cpu_us_per_req: round(pinned.measurement.cpuUsPerRequest, 2),
        pinned_p50_ms: round(pinned.measurement.p50Ms, 3),
        pinned_p99_ms: round(pinned.measurement.p99Ms, 3),
      }),
      ...(mcp && {
        mcp_tool_call_rps: round(mcp.measurement.rps, 1),
        mcp_tool_call_cpu_us: round(mcp.measurement.cpuUsPerRequest, 2),
        mcp_tool_call_p50_ms: round(mcp.measurement.p50Ms, 3),
        mcp_tool_call_p99_ms: round(mcp.measurement.p99Ms, 3),
      }),
      other_cpu_pct: round(otherCpu(result), 0),
    });
  });
}

/** Problems that make a run's figures meaningless: any error, timeout or non-2xx response. */
function failures(result: BackendResult): string[] {
  const found: string[] = [];
  for (const format of result.formats) {
    for (const [name, { measurement: m }] of targetsOf(format)) {
      const label = `${TARGET_LABELS[name]} (${result.backend} ${format.format})`;
      if (m.non2xx > 0 || m.errors > 0 || m.timeouts > 0) {
        found.push(`${label}: ${m.non2xx} non-2xx responses, ${m.errors} errors, ${m.timeouts} timeouts`);
      }
      if (m.requests === 0) found.push(`${label}: no responses at all`);
    }
  }
  return found;
}

/** Figures beyond the floors CI sets (each a little looser than its target, for noise). */
function belowFloors(result: BackendResult, settings: Settings): string[] {
  const found: string[] = [];
  for (const format of result.formats) {
    const label = `${result.backend} ${format.format}`;
    const ratio = ratioOf(format);
    const [floor, variable] =
      format.format === 'markdown'
        ? [settings.minMarkdownRatio, 'BENCH_MIN_RATIO_MARKDOWN']
        : [settings.minRatio, 'BENCH_MIN_RATIO'];
    if (!(ratio >= floor))
      found.push(`${label}: req/s ratio ${fixed(ratio, 3)} is under the floor ${floor} (${variable})`);
    const cpuRatio = cpuRatioOf(format);
    // NaN (no /proc) passes: the CPU figures are Linux-only, the req/s floor still holds elsewhere.
    if (cpuRatio > settings.maxCpuRatio) {
      found.push(
        `${label}: CPU per request ratio ${fixed(cpuRatio, 3)} is over the ceiling ${settings.maxCpuRatio} (BENCH_MAX_CPU_RATIO)`,
      );
    }
    const overhead = metricsOverhead(format);
    const ceiling = settings.maxMetricsOverheadPct;
    if (overhead !== undefined && ceiling !== undefined && overhead.cpuPct > ceiling) {
      found.push(
        `${label}: metrics cost ${fixed(overhead.cpuPct, 1)} % more CPU per request, over the ceiling ${ceiling} % (BENCH_MAX_METRICS_OVERHEAD)`,
      );
    }
  }
  return found;
}

// ------------------------------------------------------------------------------------------------- main

async function main(): Promise<number> {
  const settings = loadSettings();
  if (!existsSync(CLI))
    throw new BenchError(`${CLI} is missing: run "npm run build" first (npm run bench does)`);

  const dir = await mkdtemp(join(tmpdir(), 'brand-context-bench-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const baselineScript = await compileBaseline(dir);

  // The scratch PostgreSQL database first, so a wrong BENCH_DATABASE_URL fails before the SQLite run.
  const postgresUrl =
    settings.postgresAdminUrl === undefined
      ? undefined
      : await createScratchDatabase(settings.postgresAdminUrl);
  const results: BackendResult[] = [];
  results.push(
    await benchBackend(
      'sqlite',
      `sqlite:${join(dir, 'sqlite', 'bench.db')}`,
      join(dir, 'sqlite'),
      baselineScript,
      settings,
    ),
  );
  if (postgresUrl !== undefined) {
    results.push(
      await benchBackend('postgres', postgresUrl, join(dir, 'postgres'), baselineScript, settings),
    );
  }

  const [sqlite] = results;
  if (sqlite === undefined) throw new BenchError('no SQLite result');
  const responses = sqlite.formats
    .map((format) => `${format.format} ${format.responseBytes} body bytes (${format.contentType})`)
    .join(', ');
  const out: string[] = [
    '',
    `brand-agent benchmark: POST ${OPERATION_PATH}, ${settings.connections} connections, ${settings.durationS} s measured per target ` +
      `and format in ${settings.processes} process(es) of each server, each after ${settings.warmupS} s warm-up; node ${process.version}, ${cpus().length} CPUs`,
    `responses: ${responses}; latency from per-response timings; CPU µs/req: the server's user + system time ` +
      `over its measured rounds, per response`,
    '',
    measurementsTable(results),
    '',
    ratiosTable(results),
    '',
    ...metricsLines(results),
    ...pinnedLines(results),
    ...mcpLines(results),
    '',
  ];
  for (const result of results) {
    out.push(
      `${result.backend}: service logged ${result.logLines} lines (${fixed(result.logBytes / 1024 / 1024, 1)} MB) at LOG_LEVEL=info`,
    );
  }
  for (const result of results) {
    const other = otherCpu(result);
    if (other > BUSY_MACHINE_PCT) {
      out.push(
        `warning: other processes used up to ${fixed(other, 0)}% of a core during the ${result.backend} runs ` +
          `(${cpus().length} CPUs in all): the req/s figures understate every server; rerun on a quiet machine`,
      );
    }
  }
  out.push('');
  // SQLite's lines last, as before this run measured PostgreSQL too.
  out.push(...[...results.slice(1), sqlite].flatMap(jsonLines));
  process.stdout.write(`${out.join('\n')}\n`);

  const problems = results.flatMap((result) => [...failures(result), ...belowFloors(result, settings)]);
  for (const problem of problems) progress(`FAIL: ${problem}`);
  return problems.length === 0 ? 0 : 1;
}

await runBench(main);
