import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { levels } from 'pino';
import { brandView } from '../../core/brand-views.js';
import type { ServedBrand } from '../../services/brand/reader.js';
import type { Principal, WorkspaceClaim } from '../../services/auth/credentials.js';
import type { MaybePromise } from '../../services/shared/feed-cache.js';
import type { Metrics } from '../../services/metrics/metrics.js';
import { ifNoneMatchMatches } from '../conditional.js';
import type { AppServices } from '../context.js';
import { requestId } from '../request-id.js';
import { parsedAtOnce, QUICK_JSON_LENGTH } from '../request-input.js';
import type { CapturedBody } from '../captured-body.js';
import type { FastLane } from '../transport.js';
import { type HandedOverRead, handedOver } from './brand-agent-handover.js';
import { BRAND_AGENT_PATH, isJson, isUsualBody, type UsualBody, VIEW_CACHE_CONTROL } from './brand-agent.js';

/** A step's failure as the route will meet it: a rejection, handled here so that none goes unhandled. */
function failed(error: unknown): Promise<never> {
  const rejection = Promise.reject(error instanceof Error ? error : new Error(String(error)));
  rejection.catch(() => undefined);
  return rejection;
}

/** A body as taken, and the usual read it asks, if it is one (anything else is the route's to parse). */
interface TakenBody {
  body: CapturedBody;
  read: UsualBody | undefined;
}

function takenBody(body: CapturedBody): TakenBody {
  if (body instanceof Error) return { body, read: undefined };
  const parsed = parsedAtOnce(body.toString());
  return { body, read: parsed !== undefined && isUsualBody(parsed.value) ? parsed.value : undefined };
}

/** pino's number for debug, the level at which the access log writes a line per successful read. */
const DEBUG = levels.values.debug ?? 20;

/** A body the fast lane reads itself: declared JSON, with a length and small enough for the quick parse. */
function takesBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  if (length === undefined || !isJson(headers['content-type'])) return false;
  const bytes = Number(length);
  return bytes > 0 && bytes <= QUICK_JSON_LENGTH;
}

/**
 * The read operation's usual request, answered before Fastify builds a request and a reply for it (docs/performance.md
 * "Performance"): a JSON body of `action` and `workspace_id` (perhaps `format`), a credential and a brand that
 * are cached. Each step is the route's own (src/http/routes/brand-agent.ts), in the route's order; the first
 * that does not simply pass hands the request to the route with what was learned so far, so every refusal, and
 * every request out of the ordinary, is answered by the route alone. With the access log at debug, every
 * read goes to the route, which writes the success lines.
 */
export function brandAgentFastLane(
  services: Pick<AppServices, 'credentials' | 'reader' | 'readLimits'>,
  metrics: Pick<Metrics, 'requestCompleted'> | undefined,
  logger: Pick<FastifyBaseLogger, 'level'>,
): FastLane {
  const { credentials, reader, readLimits } = services;

  return (request, response, route) => {
    const { headers } = request;
    if (
      request.method !== 'POST' ||
      request.url !== BRAND_AGENT_PATH ||
      !takesBody(headers) ||
      (levels.values[logger.level] ?? Number.POSITIVE_INFINITY) <= DEBUG
    ) {
      route(request, response);
      return;
    }
    // Before anything that may wait: the body usually comes in the same read as the headers, right after them.
    request.captureBody();
    const started = performance.now();
    /** The body, once a signed key's claim took it before the credential was known. */
    let taken: Promise<TakenBody> | undefined;
    /** Calls `then` with the body once it is whole: taken from the request once, whoever asks first. */
    const withBody = (then: (body: TakenBody) => void): void => {
      if (taken !== undefined) void taken.then(then);
      else
        request.takeBody((body) => {
          then(takenBody(body));
        });
    };
    /** The route reads the body itself unless `learned` has it: what was captured goes back into the stream. */
    const handOver = (learned: HandedOverRead): void => {
      if (taken !== undefined && learned.body === undefined) {
        withBody(({ body }) => {
          handOver({ ...learned, body });
        });
        return;
      }
      request.releaseBody();
      handedOver(request, learned);
      route(request, response);
    };
    /** A key the cache does not hold may be verified by its signature for the workspace the body names. */
    const claim: WorkspaceClaim = () => {
      taken = new Promise(withBody);
      return taken.then(({ read }) => read?.workspace_id);
    };

    const answer = (principal: Principal, limit: string | undefined, served: ServedBrand): void => {
      const answered: OutgoingHttpHeaders = { 'x-request-id': requestId(request) };
      if (principal.kind === 'key' && principal.expiresHeader !== null)
        answered['brand-key-expires'] = principal.expiresHeader;
      if (readLimits && limit !== undefined) {
        answered['ratelimit-policy'] = readLimits.policy;
        answered.ratelimit = limit;
      }
      answered.etag = served.etag;
      answered['cache-control'] = VIEW_CACHE_CONTROL;
      let status = 304;
      if (ifNoneMatchMatches(headers['if-none-match'], served.etag)) {
        response.writeHead(status, answered).end();
      } else {
        status = 200;
        answered['content-type'] = served.contentType;
        answered['content-length'] = served.body.length;
        response.writeHead(status, answered).end(served.body);
      }
      metrics?.requestCompleted(BRAND_AGENT_PATH, 'POST', status, performance.now() - started);
    };

    /** The body, then the workspace the credential may read, then the brand (docs/reading-brand-context.md "Errors", from 400 on). */
    const afterBody = (
      principal: Principal,
      learned: HandedOverRead,
      limit: string | undefined,
      { body, read }: TakenBody,
    ): void => {
      learned.body = body;
      if (body instanceof Error || read === undefined || read.action !== 'context') {
        // A body cut short (the client went away) is the route's to answer, as it would have.
        handOver(learned);
        return;
      }
      let access: MaybePromise<unknown>;
      try {
        access = credentials.authorize(principal, read.workspace_id, 'brand.read');
      } catch (error) {
        handOver({ ...learned, access: failed(error) });
        return;
      }
      const granted = access;
      const serve = (): void => {
        const handOverBrand = (brand: Promise<ServedBrand>): void => {
          handOver({ ...learned, access: Promise.resolve(granted), brand });
        };
        let brand: MaybePromise<ServedBrand>;
        try {
          brand = reader.readWorkspace(read.workspace_id, brandView(read));
        } catch (error) {
          handOverBrand(failed(error));
          return;
        }
        if (!(brand instanceof Promise)) {
          answer(principal, limit, brand);
          return;
        }
        const loading = brand;
        loading.then(
          (loaded) => {
            answer(principal, limit, loaded);
          },
          () => {
            handOverBrand(loading);
          },
        );
      };
      if (granted instanceof Promise) {
        granted.then(serve, () => {
          handOver({ ...learned, access: granted });
        });
      } else serve();
    };

    const readBody = (principal: Principal, learned: HandedOverRead, limit: string | undefined): void => {
      withBody((body) => {
        afterBody(principal, learned, limit, body);
      });
    };

    /** The budget, taken once the credential is known (the content type was checked before anything). */
    const afterCredential = (principal: Principal): void => {
      if (!readLimits) {
        readBody(principal, { principal }, undefined);
        return;
      }
      const limit = readLimits.take(principal);
      const learned: HandedOverRead = { principal, limit };
      limit.then(
        (header) => {
          readBody(principal, learned, header);
        },
        () => {
          handOver(learned);
        },
      );
    };

    let principal: MaybePromise<Principal>;
    try {
      principal = credentials.resolve({ authorization: headers.authorization }, 'read', claim);
    } catch (error) {
      handOver({ principal: failed(error) });
      return;
    }
    if (principal instanceof Promise) {
      const resolving = principal;
      resolving.then(afterCredential, () => {
        handOver({ principal: resolving });
      });
    } else afterCredential(principal);
  };
}
