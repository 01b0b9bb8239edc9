/**
 * `npm run bench`: throughput of `POST /functions/v1/brand-agent` (valid key, the demo brand with its 20
 * knowledge entries) against a bare `node:http` server returning the same bytes, measured in the same run
 * with the same autocannon settings. Both servers are separate child processes; autocannon runs here.
 * Two formats are measured, each against its own baseline serving that format's bytes: the whole brand as
 * JSON (the operation's usual body, no option) and as Markdown (`"format":"markdown"`). For each, after a
 * discarded warm-up of both targets, they are measured in ABBA order (baseline, service, service, baseline;
 * half the duration per round), so background load drifting during the run hits both alike.
 *
 * Environment:
 *   BENCH_DURATION       measured seconds per target and format (default 5), run as two halves
 *   BENCH_WARMUP         warm-up seconds per target and format (default 1)
 *   BENCH_CONNECTIONS    concurrent connections (default 10)
 *   BENCH_MIN_RATIO      floor for service/baseline req/s of the JSON view on SQLite (default: the 0.5
 *                        target); below it, exit 1. CI sets it a little lower so that run-to-run noise
 *                        cannot fail a build
 *   BENCH_MIN_RATIO_MARKDOWN  the same for the Markdown view (default: BENCH_MIN_RATIO). Its ratio is
 *                        structurally lower: the service's fixed cost per request is the same while the
 *                        baseline sends 55 % of the bytes, so the baseline gains more than the service
 *   BENCH_DATABASE_URL   postgres://… admin URL: also measure on PostgreSQL, in a scratch database created
 *                        (and dropped WITH (FORCE)) for this run; informational, the target is for SQLite
 *
 * The service runs as built (`npm run build`, done by `prebench`) with logging at its default level,
 * written to a file in the run's temp dir. Latency percentiles come from every response's own timing
 * (autocannon's histogram rounds to whole milliseconds). The CPU columns (Linux) say how much of a core
 * the server and everything else used while measured: on a busy machine the figures are flagged.
 */
import { closeSync, createReadStream, existsSync, openSync } from 'node:fs';
import { mkdtemp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import ts from 'typescript';
import { z } from 'zod';
import type { BrandFormat } from '../src/contract/brand-views.js';
import { VIEW_CONTENT_TYPES } from '../src/core/brand-views.js';
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
  progress,
  READY_TIMEOUT_MS,
  ROOT,
  round,
  runBench,
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
/** Above this much CPU (% of one core) used by other processes during a measurement, the run is flagged. */
const BUSY_MACHINE_PCT = 25;
/** The target for service/baseline req/s on SQLite, always reported. */
const TARGET_RATIO = 0.5;
/** Headers of the operation's response that the baseline repeats verbatim (the key's expiry included). */
const REPLAYED_HEADERS = [
  'content-type',
  'etag',
  'cache-control',
  'x-request-id',
  'brand-key-expires',
] as const;
/** The formats measured, each against a baseline serving its bytes. */
const FORMATS = ['json', 'markdown'] as const satisfies readonly BrandFormat[];
type Format = (typeof FORMATS)[number];
/** Entries of the demo brand's knowledge section, which every format is checked to carry. */
const DEMO_KNOWLEDGE_ENTRIES = 20;

// ---------------------------------------------------------------------------------------------- settings

interface Settings {
  durationS: number;
  warmupS: number;
  connections: number;
  minRatio: number;
  minMarkdownRatio: number;
  postgresAdminUrl: string | undefined;
}

function numberFromEnv(
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

function loadSettings(): Settings {
  const postgresAdminUrl = process.env.BENCH_DATABASE_URL?.trim() || undefined;
  const minRatio = numberFromEnv('BENCH_MIN_RATIO', TARGET_RATIO, (v) => v >= 0, 'a number >= 0');
  if (postgresAdminUrl !== undefined && !/^postgres(ql)?:\/\//.test(postgresAdminUrl)) {
    throw new BenchError('BENCH_DATABASE_URL must be a postgres:// URL');
  }
  return {
    durationS: numberFromEnv(
      'BENCH_DURATION',
      5,
      (v) => Number.isInteger(v) && v >= 1,
      'a whole number of seconds >= 1',
    ),
    warmupS: numberFromEnv(
      'BENCH_WARMUP',
      1,
      (v) => Number.isInteger(v) && v >= 0,
      'a whole number of seconds >= 0',
    ),
    connections: numberFromEnv(
      'BENCH_CONNECTIONS',
      10,
      (v) => Number.isInteger(v) && v >= 1,
      'an integer >= 1',
    ),
    minRatio,
    minMarkdownRatio: numberFromEnv('BENCH_MIN_RATIO_MARKDOWN', minRatio, (v) => v >= 0, 'a number >= 0'),
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
}

/** utime + stime of a process, in clock ticks (field 14 and 15 of /proc/<pid>/stat). */
async function processTicks(pid: number | 'self'): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
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
    return {
      busy: total - idle - iowait,
      total,
      server: await processTicks(serverPid),
      bench: await processTicks('self'),
    };
  } catch {
    return undefined;
  }
}

/**
 * One target's measured rounds, added up: responses over the rounds' total duration, percentiles over every
 * response of every round, CPU ticks over all rounds.
 */
class TargetRuns {
  private readonly latencies = new Latencies();
  private responses = 0;
  private bytes = 0;
  private seconds = 0;
  private non2xx = 0;
  private errors = 0;
  private timeouts = 0;
  private cpu: { coreTicks: number; server: number; bench: number; other: number } | undefined = {
    coreTicks: 0,
    server: 0,
    bench: 0,
    other: 0,
  };

  constructor(
    readonly url: string,
    readonly serverPid: number,
  ) {}

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
  }

  measurement(): Measurement {
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
      cpu: cpu && { serverPct: pct(cpu.server), benchPct: pct(cpu.bench), otherPct: pct(cpu.other) },
    };
  }
}

/** One autocannon run against `target`; recorded into it, or discarded (warm-up) when `record` is false. */
async function cannon(
  target: TargetRuns,
  operation: Operation,
  connections: number,
  durationS: number,
  record: boolean,
): Promise<void> {
  const before = record ? await cpuSnapshot(target.serverPid) : undefined;
  const result = await new Promise<autocannon.Result>((resolveRun, reject) => {
    const instance = autocannon(
      {
        url: `${target.url}${OPERATION_PATH}`,
        method: 'POST',
        headers: operation.headers,
        body: operation.body,
        connections,
        duration: durationS,
      },
      (error: unknown, done: autocannon.Result) => {
        if (error !== null && error !== undefined)
          reject(error instanceof Error ? error : new BenchError(describe(error)));
        else resolveRun(done);
      },
    );
    if (record) {
      instance.on('response', (_client, _status, _bytes, responseTime) => {
        target.recordLatency(responseTime);
      });
    }
  });
  if (record) target.recordRun(result, before, await cpuSnapshot(target.serverPid));
}

interface Memory {
  rssMb: number;
  peakMb: number;
}

/** VmRSS and VmHWM (peak RSS) from /proc; undefined where there is no /proc (not Linux). */
async function memoryOf(pid: number): Promise<Memory | undefined> {
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

async function countLines(path: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(path)) {
    const buffer = chunk as Buffer;
    for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) lines++;
  }
  return lines;
}

interface TargetResult {
  measurement: Measurement;
  memory: Memory | undefined;
}

interface FormatResult {
  format: Format;
  responseBytes: number;
  contentType: string;
  baseline: TargetResult;
  service: TargetResult;
}

interface BackendResult {
  backend: 'sqlite' | 'postgres';
  formats: FormatResult[];
  logLines: number;
  logBytes: number;
}

/** The demo brand read in `format`; JSON sends no option, as most callers do (the whole brand's fast path). */
function operationFor(format: Format, demo: Seed): Operation {
  const options = format === 'json' ? {} : { format };
  return {
    headers: { authorization: `Bearer ${demo.brand_read_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'context', workspace_id: demo.workspace_id, ...options }),
  };
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
  if (knowledgeEntries(format, first.body.toString('utf8')) !== DEMO_KNOWLEDGE_ENTRIES) {
    progress(
      `${label}: warning: expected the demo brand's ${DEMO_KNOWLEDGE_ENTRIES} knowledge entries in the response`,
    );
  }
  return { body: first.body, headers };
}

/** One format on a running service: its own baseline, a warm-up of both, then the ABBA rounds. */
async function benchFormat(
  backend: BackendResult['backend'],
  format: Format,
  service: Server,
  demo: Seed,
  dir: string,
  baselineScript: string,
  settings: Settings,
): Promise<FormatResult> {
  const label = `${backend} ${format}`;
  const operation = operationFor(format, demo);
  const answer = await serviceAnswer(label, format, service, operation);
  const baseline = await startBaseline(dir, baselineScript, format, answer);
  const check = await send(`${baseline.baseUrl}${OPERATION_PATH}`, { method: 'POST', ...operation });
  if (check.status !== 200 || !check.body.equals(answer.body))
    throw new BenchError(`${label}: the baseline does not return the same bytes`);
  progress(
    `${label}: baseline ready at ${baseline.baseUrl} (pid ${baseline.child.pid}), ${answer.body.length} body bytes each`,
  );

  const { connections, durationS, warmupS } = settings;
  const baselineTarget = new TargetRuns(baseline.baseUrl, baseline.child.pid);
  const serviceTarget = new TargetRuns(service.baseUrl, service.child.pid);
  if (warmupS > 0) {
    progress(`${label}: warm-up ${warmupS} s each (discarded): baseline, service`);
    await cannon(baselineTarget, operation, connections, warmupS, false);
    await cannon(serviceTarget, operation, connections, warmupS, false);
  }
  // ABBA: each target measured in two halves, baseline-service-service-baseline, so that a drift in the
  // machine's background load weighs on both alike.
  const half = durationS / 2;
  progress(`${label}: measuring ${durationS} s each, in halves: baseline, service, service, baseline`);
  await cannon(baselineTarget, operation, connections, half, true);
  await cannon(serviceTarget, operation, connections, half, true);
  await cannon(serviceTarget, operation, connections, half, true);
  const serviceMemory = await memoryOf(service.child.pid);
  await cannon(baselineTarget, operation, connections, half, true);
  const baselineMemory = await memoryOf(baseline.child.pid);
  await baseline.child.stop();

  return {
    format,
    responseBytes: answer.body.length,
    contentType: answer.headers['content-type'] ?? '',
    baseline: { measurement: baselineTarget.measurement(), memory: baselineMemory },
    service: { measurement: serviceTarget.measurement(), memory: serviceMemory },
  };
}

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
  const service = await startService(dir, databaseUrl);
  progress(
    `${backend}: service ready at ${service.baseUrl} (pid ${service.child.pid}, delivery worker on with DELIVERY_WORKERS=${DELIVERY_WORKERS}, logs in ${service.logPath})`,
  );

  const formats: FormatResult[] = [];
  for (const format of FORMATS) {
    formats.push(await benchFormat(backend, format, service, demo, dir, baselineScript, settings));
  }

  await service.child.stop();
  const { exitCode, signalCode } = service.child.process;
  if (exitCode !== 0) {
    progress(
      `${backend}: warning: the service did not exit cleanly on SIGTERM (${exitCode ?? signalCode ?? '?'})`,
    );
  }
  const logBytes = (await stat(service.logPath)).size;
  const logLines = await countLines(service.logPath);

  return { backend, formats, logLines, logBytes };
}

// ---------------------------------------------------------------------------------------------- printing

const ratioOf = (result: FormatResult) => result.service.measurement.rps / result.baseline.measurement.rps;

/** Every target of every format on every backend, a row each. */
function measurementsTable(results: BackendResult[]): string {
  const headers = [
    'backend',
    'format',
    'target',
    'req/s',
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
      for (const [target, { measurement: m, memory }] of [
        ['baseline node:http', format.baseline],
        ['service', format.service],
      ] as const) {
        rows.push([
          result.backend,
          format.format,
          target,
          fixed(m.rps, 0),
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

/** The service/baseline ratios: a row per backend, a column per format. */
function ratiosTable(results: BackendResult[]): string {
  const rows = results.map((result) => [
    result.backend,
    ...FORMATS.map((format) => {
      const measured = result.formats.find((each) => each.format === format);
      return measured === undefined ? 'n/a' : fixed(ratioOf(measured), 3);
    }),
  ]);
  return formatTable(['service/baseline req/s', ...FORMATS], rows, 1);
}

/** The most CPU that anything but the two servers and this process used during a backend's measured runs. */
function otherCpu(result: BackendResult): number {
  const uses = result.formats.flatMap((format) =>
    [format.baseline, format.service].map((target) => target.measurement.cpu?.otherPct ?? Number.NaN),
  );
  return Math.max(...uses);
}

function jsonLines(result: BackendResult): string[] {
  return result.formats.map((measured) => {
    const { baseline, service } = measured;
    return JSON.stringify({
      bench: 'brand-agent',
      backend: result.backend,
      format: measured.format,
      response_bytes: measured.responseBytes,
      service_rps: round(service.measurement.rps, 1),
      baseline_rps: round(baseline.measurement.rps, 1),
      ratio: round(ratioOf(measured), 3),
      service_p50_ms: round(service.measurement.p50Ms, 3),
      service_p99_ms: round(service.measurement.p99Ms, 3),
      service_rss_mb: service.memory ? round(service.memory.rssMb, 1) : null,
      service_peak_rss_mb: service.memory ? round(service.memory.peakMb, 1) : null,
      baseline_p50_ms: round(baseline.measurement.p50Ms, 3),
      baseline_p99_ms: round(baseline.measurement.p99Ms, 3),
      baseline_rss_mb: baseline.memory ? round(baseline.memory.rssMb, 1) : null,
      other_cpu_pct: round(otherCpu(result), 0),
    });
  });
}

/** Problems that make a run's figures meaningless: any error, timeout or non-2xx response. */
function failures(result: BackendResult): string[] {
  const found: string[] = [];
  for (const format of result.formats) {
    for (const [target, { measurement: m }] of [
      ['baseline', format.baseline],
      ['service', format.service],
    ] as const) {
      const label = `${target} (${result.backend} ${format.format})`;
      if (m.non2xx > 0 || m.errors > 0 || m.timeouts > 0) {
        found.push(`${label}: ${m.non2xx} non-2xx responses, ${m.errors} errors, ${m.timeouts} timeouts`);
      }
      if (m.requests === 0) found.push(`${label}: no responses at all`);
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
      `and format after ${settings.warmupS} s warm-up; node ${process.version}, ${cpus().length} CPUs`,
    `responses: ${responses}; latency from per-response timings`,
    '',
    measurementsTable(results),
    '',
    ratiosTable(results),
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
          `(${cpus().length} CPUs in all): the figures understate both servers; rerun on a quiet machine`,
      );
    }
  }
  const verdicts = sqlite.formats.map(
    (format) => `${format.format} ${ratioOf(format) >= TARGET_RATIO ? 'met' : 'NOT met'}`,
  );
  out.push(`target ratio >= ${TARGET_RATIO} (sqlite): ${verdicts.join(', ')}`, '');
  // SQLite's lines last, so that the last line is the figure the target is about.
  out.push(...[...results.slice(1), sqlite].flatMap(jsonLines));
  process.stdout.write(`${out.join('\n')}\n`);

  const problems = results.flatMap(failures);
  for (const format of sqlite.formats) {
    const ratio = ratioOf(format);
    const [floor, variable] =
      format.format === 'markdown'
        ? [settings.minMarkdownRatio, 'BENCH_MIN_RATIO_MARKDOWN']
        : [settings.minRatio, 'BENCH_MIN_RATIO'];
    if (!(ratio >= floor)) {
      problems.push(
        `sqlite ${format.format}: ratio ${fixed(ratio, 3)} is under the floor ${floor} (${variable})`,
      );
    }
  }
  for (const problem of problems) progress(`FAIL: ${problem}`);
  return problems.length === 0 ? 0 : 1;
}

await runBench(main);
