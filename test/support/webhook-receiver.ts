import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { type WebhookEvent, webhookEventSchema } from '../../src/contract/webhook-events.js';
import type { WebhookEventType } from '../../src/contract/webhooks.js';
import { Waiters } from './waiters.js';

/** One request as the receiver saw it. */
export interface Arrival {
  /** The webhook-id header: the event's id, the same on every attempt. */
  id: string;
  headers: Record<string, string>;
  body: string;
  /** `Date.now()` when the whole request had arrived (before the answer). */
  at: number;
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
}

/**
 * A webhook endpoint on 127.0.0.1 that records every request and answers `status` (or what `statusFor` says
 * for the nth request) after `delayMs`. It can be down (closed) and come back on the same port, so an
 * endpoint saved while it is down stays valid.
 */
export class WebhookReceiver {
  readonly arrivals: Arrival[] = [];
  status = 200;
  /** The status of the `index`th request (0-based), when answers differ from one request to the next. */
  statusFor: ((index: number) => number) | undefined;
  /** How long each answer waits: an attempt stays in flight that long. */
  delayMs = 0;
  private server: Server | undefined;
  private readonly waiters = new Waiters('receiver');

  private constructor(private port: number) {}

  /** Listening on a free port (or `port`). */
  static async start(port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(port);
    await receiver.listen();
    return receiver;
  }

  /** A port to come up on later, nothing listening there yet: an endpoint that is down. */
  static async down(): Promise<WebhookReceiver> {
    const receiver = await WebhookReceiver.start();
    await receiver.close();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${String(this.port)}/hooks`;
  }

  async listen(): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const headers = flatHeaders(request.headers);
        const index =
          this.arrivals.push({
            id: headers['webhook-id'] ?? '',
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
            at: Date.now(),
          }) - 1;
        this.waiters.notify();
        setTimeout(() => {
          response.statusCode = this.statusFor?.(index) ?? this.status;
          response.end('ok');
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Resolves once `done` holds for the arrivals so far; fails after `timeoutMs`. */
  async until(done: (arrivals: readonly Arrival[]) => boolean, timeoutMs = 10_000): Promise<Arrival[]> {
    await this.waiters.until(
      () => done(this.arrivals),
      timeoutMs,
      () =>
        `${String(this.arrivals.length)} requests arrived: ${this.arrivals.map((arrival) => arrival.id).join(', ')}`,
    );
    return [...this.arrivals];
  }

  /** Resolves once `count` requests have arrived. */
  count(count: number, timeoutMs = 10_000): Promise<Arrival[]> {
    return this.until((arrivals) => arrivals.length >= count, timeoutMs);
  }

  /** The `index`th request (0-based), once it has arrived; fails after `timeoutMs`. */
  async nth(index: number, timeoutMs = 10_000): Promise<Arrival> {
    const arrival = (await this.until((arrivals) => arrivals.length > index, timeoutMs))[index];
    if (arrival === undefined) throw new Error(`request ${String(index)} did not arrive`);
    return arrival;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  }
}

/**
 * The event a body (a request's, or a delivery's `payload`) carries, once it validates against its type's
 * schema (src/contract/webhook-events.ts) with no field the schema does not name; throws otherwise.
 */
export function eventOf(body: string): WebhookEvent {
  const sent: unknown = JSON.parse(body);
  const event = webhookEventSchema.parse(sent);
  // zod drops fields its schema does not name: a body with more than its schema says is not what it documents.
  if (!isDeepStrictEqual(event, sent)) throw new Error(`fields beyond its event schema: ${body}`);
  return event;
}

function isOfType<Type extends WebhookEventType>(
  event: WebhookEvent,
  types: readonly Type[],
): event is WebhookEvent<Type> {
  return (types as readonly WebhookEventType[]).includes(event.type);
}

/** `eventOf`, for a body that must carry an event of one of `types`: typed as such (throws otherwise). */
export function eventOfType<Type extends WebhookEventType>(
  body: string,
  types: readonly Type[],
): WebhookEvent<Type> {
  const event = eventOf(body);
  if (!isOfType(event, types)) throw new Error(`a ${event.type} event, not one of ${types.join(', ')}`);
  return event;
}

/** The event a request carries, once its signature verifies with `secret` and it validates (throws otherwise). */
export function verifiedEvent(secret: string, arrival: Arrival): WebhookEvent {
  new Webhook(secret).verify(arrival.body, arrival.headers);
  return eventOf(arrival.body);
}

/** The ids that arrived more than once. */
export function repeatedIds(arrivals: readonly Arrival[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const { id } of arrivals) {
    if (seen.has(id)) repeated.add(id);
    seen.add(id);
  }
  return [...repeated];
}

/**
 * An endpoint that hangs: a TCP server on 127.0.0.1 that accepts every connection, reads what is sent and
 * never answers, so each attempt runs until the sender gives up. Every path on it is a distinct URL.
 */
export class HangingEndpoint {
  /** The connections accepted so far. */
  accepted = 0;
  private readonly sockets = new Set<Socket>();
  private readonly waiters = new Waiters('hanging endpoint');

  private readonly server: NetServer = createNetServer((socket) => {
    socket.resume();
    this.accept(socket);
  });

  private constructor() {}

  static async start(): Promise<HangingEndpoint> {
    const endpoint = new HangingEndpoint();
    await new Promise<void>((resolve, reject) => {
      endpoint.server.once('error', reject);
      endpoint.server.listen(0, '127.0.0.1', resolve);
    });
    return endpoint;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private accept(socket: Socket): void {
    this.accepted += 1;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    this.waiters.notify();
  }

  /** A URL of this endpoint: `path` tells endpoints apart. */
  url(path: string): string {
    return `http://127.0.0.1:${String(this.port)}/${path}`;
  }

  /** The connections open now: attempts still waiting for an answer. */
  get open(): number {
    return this.sockets.size;
  }

  /** Resolves once `count` connections have been accepted in all. */
  async connections(count: number, timeoutMs = 10_000): Promise<void> {
    await this.waiters.until(
      () => this.accepted >= count,
      timeoutMs,
      () => `${String(this.accepted)} connections were accepted`,
    );
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
  }
}
