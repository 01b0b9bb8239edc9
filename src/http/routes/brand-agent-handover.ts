import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { ServedBrand } from '../../services/brand/reader.js';
import type { Principal } from '../../services/auth/credentials.js';
import type { MaybePromise } from '../../services/shared/feed-cache.js';

/**
 * What the fast lane learned of a read before handing it to the route: the outcome of each step it took,
 * which the route uses instead of taking the step again (a second take from the budget, a second read of a
 * body already read, a second store lookup).
 */
export interface HandedOverRead {
  principal: MaybePromise<Principal>;
  /** The RateLimit header's value, or the 429; absent when reads are not limited. */
  limit?: Promise<string>;
  /** The request body as it arrived, or the error that cut it short. */
  body?: Buffer | Error;
  access?: Promise<unknown>;
  brand?: Promise<ServedBrand>;
}

const learnedOf = new WeakMap<IncomingMessage, HandedOverRead>();

/** Records what the fast lane learned of `request`, before it hands the request to the route. */
export function handedOver(request: IncomingMessage, learned: HandedOverRead): void {
  learnedOf.set(request, learned);
}

/** What the fast lane learned of this request before it handed it over, if it did. */
export function handedOverRead(request: IncomingMessage): HandedOverRead | undefined {
  return learnedOf.get(request);
}

/** The body the fast lane read, as a stream for the route's parser (a preParsing hook), or undefined. */
export function replayedBody(request: IncomingMessage): Readable | undefined {
  const body = learnedOf.get(request)?.body;
  if (body === undefined) return undefined;
  if (body instanceof Error) {
    return new Readable({
      read() {
        this.destroy(body);
      },
    });
  }
  return Readable.from([body]);
}
