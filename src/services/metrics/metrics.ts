import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { ChangeFeed } from '../../store/change-feed.js';
import type { Store } from '../../store/store.js';
import type { SignatureStats } from '../keys/signed-keys.js';

/** The label of every request no route matched: neither a raw URL (it may hold a key) nor unbounded series. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Where the console's built files are served (src/http/console.ts): one route each, named by content hash. */
export const CONSOLE_ASSETS = '/assets/';

/**
 * A route's label: the console's files count under one, `/assets/*`, or each build would add series.
 * Applied when scraped, not per request.
 */
export function routeLabel(route: string): string {
  return route.startsWith(CONSOLE_ASSETS) ? `${CONSOLE_ASSETS}*` : route;
}

/** What a cache built on FeedCache counted since it was made (src/services/shared/feed-cache.ts). */
export interface CacheStats {
  hits: number;
  misses: number;
  /** Entries dropped to stay within the cache's bound (not the change feed's invalidations). */
  evictions: number;
  /** Entries held now. */
  readonly entries: number;
}

/** How the read limit counts (src/services/brand/read-limits.ts), read when scraped. */
export interface ReadLimitStats {
  /** True while Redis answers and every node counts against one budget; false while each counts alone. */
  readonly shared: boolean;
  /** Reads this node counted on its own because Redis failed. */
  readonly countedLocally: number;
}

/** Jobs of the delivery queue not yet settled, by channel and status, as the store counts them. */
export interface QueueDepth {
  channel: string;
  status: string;
  count: number;
}

/** Each status a job not yet settled may have, with 0 when none has it: an alert sees no gap. */
function depthOf(
  channel: string,
  statuses: readonly string[],
  counted: readonly { status: string; count: number }[],
): QueueDepth[] {
  return statuses.map((status) => ({
    channel,
    status,
    count: counted.find((row) => row.status === status)?.count ?? 0,
  }));
}

/** The delivery queue's depth as the store counts it, for `Metrics.watchDeliveryQueue`. */
export function deliveryQueueDepth(
  store: Pick<Store, 'deliveries' | 'emailQueue'>,
): () => Promise<QueueDepth[]> {
  return async () => {
    const [webhook, email] = await Promise.all([
      store.deliveries.countQueued(),
      store.emailQueue.countQueued(),
    ]);
    return [
      ...depthOf('webhook', ['pending', 'retrying'], webhook),
      ...depthOf('email', ['queued', 'deferred'], email),
    ];
  };
}

/** Upper bounds of the read latency buckets, in seconds: a cached read takes well under a millisecond. */
const READ_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];
const READ_DURATION = 'brand_context_read_duration_seconds';

/**
 * The read latency histogram in plain numbers, written out in Prometheus's text format when scraped:
 * prom-client's `Histogram.observe` costs about 0.4 µs, nearly ten times the rest of the counting of a read,
 * and it has no way to take counts made elsewhere.
 */
class ReadDurations {
  /** Observations per bucket (not cumulative); the last one is above every bound. */
  private readonly counts = new Float64Array(READ_BUCKETS.length + 1);
  private sum = 0;
  private count = 0;

  observe(seconds: number): void {
    let bucket = 0;
    while (bucket < READ_BUCKETS.length && seconds > (READ_BUCKETS[bucket] ?? 0)) bucket++;
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
    this.sum += seconds;
    this.count++;
  }

  text(): string {
    const lines = [
      `# HELP ${READ_DURATION} Time to answer the read operation (POST /functions/v1/brand-agent), any status, in seconds.`,
      `# TYPE ${READ_DURATION} histogram`,
    ];
    let cumulative = 0;
    READ_BUCKETS.forEach((bound, bucket) => {
      cumulative += this.counts[bucket] ?? 0;
      lines.push(`${READ_DURATION}_bucket{le="${String(bound)}"} ${String(cumulative)}`);
    });
    lines.push(
      `${READ_DURATION}_bucket{le="+Inf"} ${String(this.count)}`,
      `${READ_DURATION}_sum ${String(this.sum)}`,
      `${READ_DURATION}_count ${String(this.count)}`,
    );
    return `${lines.join('\n')}\n`;
  }
}

/** The map under `key`, created on first use. */
function inner<K, K2, V>(maps: Map<K, Map<K2, V>>, key: K): Map<K2, V> {
  let map = maps.get(key);
  if (map === undefined) {
    map = new Map();
    maps.set(key, map);
  }
  return map;
}

/** A nested count, created on first use: a few Map lookups per request, and no string is built. */
function bump<K1, K2>(counts: Map<K1, Map<K2, number>>, first: K1, second: K2): void {
  const counted = inner(counts, first);
  counted.set(second, (counted.get(second) ?? 0) + 1);
}

/** Node's process and event-loop metrics, one set per process whatever the number of apps (tests build many). */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * What `GET /metrics` exports (docs/operations.md "Operations", docs/operations.md lists every metric). Each app has its
 * own registry. The hot path only adds to plain numbers; prom-client reads them, the caches, the change feed
 * and the queue when scraped.
 */
export class Metrics {
  private readonly registry = new Registry();
  /** Requests by route pattern, method and status. */
  private readonly requests = new Map<string, Map<string, Map<number, number>>>();
  private readonly readDurations = new ReadDurations();
  private readonly outcomes = new Map<string, Map<string, number>>();
  private readonly caches = new Map<string, CacheStats>();
  private changeFeed: ChangeFeed | undefined;
  private queueDepth: (() => Promise<QueueDepth[]>) | undefined;

  constructor(private readonly readRoute: string) {
    // Started with the first app, so that its first scrape already has the event loop's delays and GCs.
    processMetrics();
    const registers = [this.registry];
    const requests = this.requests;
    new Counter({
      name: 'brand_context_http_requests_total',
      help: 'HTTP requests answered, by route pattern (unmatched: no route), method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
      collect() {
        this.reset();
        for (const [route, byMethod] of requests)
          for (const [method, byStatus] of byMethod)
            for (const [status, count] of byStatus)
              this.inc({ route: routeLabel(route), method, status }, count);
      },
    });
    const caches = this.caches;
    const cacheCounter = (what: 'hits' | 'misses' | 'evictions', help: string) =>
      new Counter({
        name: `brand_context_cache_${what}_total`,
        help,
        labelNames: ['cache'],
        registers,
        collect() {
          this.reset();
          for (const [cache, stats] of caches) this.inc({ cache }, stats[what]);
        },
      });
    cacheCounter('hits', 'Lookups answered from memory, by cache.');
    cacheCounter(
      'misses',
      'Lookups not answered from memory, by cache (all of them while the change feed is down): loaded from the database, or for keys verified by their signature (brand_context_keys_verified_by_signature_total).',
    );
    cacheCounter(
      'evictions',
      'Entries dropped to keep a cache within its bound (not invalidations), by cache.',
    );
    new Gauge({
      name: 'brand_context_cache_entries',
      help: 'Entries held, by cache.',
      labelNames: ['cache'],
      registers,
      collect() {
        for (const [cache, stats] of caches) this.set({ cache }, stats.entries);
      },
    });
    const feed = () => this.changeFeed;
    new Gauge({
      name: 'brand_context_change_feed_up',
      help: "1 while the change feed sees other nodes' writes (the caches serve from memory), 0 while it reconnects.",
      registers,
      collect() {
        const changes = feed();
        if (changes) this.set(changes.live ? 1 : 0);
      },
    });
    new Gauge({
      name: 'brand_context_change_feed_lag_seconds',
      help: "Seconds since the change feed last proved it misses no other node's write (PostgreSQL: the LISTEN connection's heartbeat, every 0.5 s; SQLite: the data_version poll, every 0.2 s): how late this node may learn of another's write. Grows while the feed is down.",
      registers,
      collect() {
        const changes = feed();
        if (changes) this.set(changes.lagMs(Date.now()) / 1000);
      },
    });
    const depth = () => this.queueDepth;
    new Gauge({
      name: 'brand_context_delivery_queue_depth',
      help: 'Jobs of the delivery queue not yet settled, by channel (webhook, email) and status; counted when scraped, left out while the database does not answer.',
      labelNames: ['channel', 'status'],
      registers,
      async collect() {
        const count = depth();
        if (!count) return;
        this.reset();
        // Metrics matter most while the database is out of reach: the queue is left out then, not the rest.
        const counted = await count().catch(() => []);
        for (const { channel, status, count: jobs } of counted) this.set({ channel, status }, jobs);
      },
    });
    const outcomes = this.outcomes;
    new Counter({
      name: 'brand_context_delivery_outcomes_total',
      help: "Jobs this node's delivery worker finished, by channel and outcome: the status recorded, or lease_lost, released (stopping), gone (its endpoint was deleted), error (could not record).",
      labelNames: ['channel', 'outcome'],
      registers,
      collect() {
        this.reset();
        for (const [channel, byOutcome] of outcomes)
          for (const [outcome, count] of byOutcome) this.inc({ channel, outcome }, count);
      },
    });
  }

  /**
   * Counts a request (once per request, from the access log). `route` is the matched route's pattern, undefined
   * when none matched; `ms` its time to answer.
   */
  requestCompleted(route: string | undefined, method: string, status: number, ms: number): void {
    bump(inner(this.requests, route ?? UNMATCHED_ROUTE), method, status);
    if (route === this.readRoute && method === 'POST') this.readDurations.observe(ms / 1000);
  }

  /** A job of the delivery queue was finished by this node's worker. */
  deliveryOutcome(channel: string, outcome: string): void {
    bump(this.outcomes, channel, outcome);
  }

  /** Exports a cache's counts, read when scraped. */
  watchCache(name: string, stats: CacheStats): void {
    this.caches.set(name, stats);
  }

  /**
   * Exports how many keys their signature verified (src/services/keys/signed-keys.ts), and how many of those had no
   * row and were refused, read when scraped.
   */
  watchKeySignatures(stats: SignatureStats): void {
    new Counter({
      name: 'brand_context_keys_verified_by_signature_total',
      help: 'Keys the key cache did not hold that their signature verified for the workspace asked, with no database lookup (the rest of the key cache misses went to the database).',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(stats.verified);
      },
    });
    new Counter({
      name: 'brand_context_unrecorded_keys_total',
      help: 'Keys with a valid signature that had no row (made with a leaked signing secret, not by the service), which this node recorded as revoked so that every node refuses them (docs/operations.md). Anything above 0: rotate the signing secret.',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(stats.unrecorded);
      },
    });
  }

  watchChangeFeed(changes: ChangeFeed): void {
    this.changeFeed = changes;
  }

  /** How the queue's depth is counted when scraped (a query). */
  watchDeliveryQueue(count: () => Promise<QueueDepth[]>): void {
    this.queueDepth = count;
  }

  /** Exports whether the read budget is shared through Redis: only called with REDIS_URL, absent otherwise. */
  watchReadLimits(limits: ReadLimitStats): void {
    const registers = [this.registry];
    new Gauge({
      name: 'brand_context_read_limit_shared',
      help: 'RATE_LIMIT_READS through REDIS_URL: 1 while Redis answers and every node counts against one budget, 0 while this node counts alone.',
      registers,
      collect() {
        this.set(limits.shared ? 1 : 0);
      },
    });
    new Counter({
      name: 'brand_context_read_limit_local_total',
      help: 'Reads this node counted against RATE_LIMIT_READS on its own because Redis failed or was being left alone after a failure.',
      registers,
      collect() {
        this.reset();
        this.inc(limits.countedLocally);
      },
    });
  }

  contentType(): string {
    return this.registry.contentType;
  }

  /** Everything, Node's process and event-loop metrics included, in Prometheus's text format. */
  async text(): Promise<string> {
    const registered = await Registry.merge([this.registry, processMetrics()]).metrics();
    return `${registered}\n${this.readDurations.text()}`;
  }
}
