import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { AppError } from '../../core/errors.js';
import { BRAND_KEY } from '../../core/secret-keys.js';
import { OPERATOR } from '../../services/audit/audit.js';
import { createBrandKey, revokeBrandKey } from '../../services/keys/keys.js';
import { listenOnLoopback } from '#test/support/app.js';
import { describeEachBackend } from '#test/support/databases.js';
import { PATH } from '#test/support/fixtures/brand-agent.js';
import { crlf, parseResponses, receiver } from '#test/support/raw-http.js';
import { type Fixture, useFixture } from '#test/support/http-fixture.js';
import { CapturingRequest } from '../captured-body.js';
import { brandAgentFastLane } from './brand-agent-fast-lane.js';
import { type HandedOverRead, handedOverRead } from './brand-agent-handover.js';

/** One read as a client sends it: headers and a body, the read operation's usual ones unless overridden. */
interface Read {
  headers: Record<string, string>;
  body: string;
}

function usualRead(
  f: Fixture,
  override: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Read {
  const key = override.key === undefined ? f.brandKey : override.key;
  return {
    headers: {
      'content-type': 'application/json',
      ...(key !== null && { authorization: `Bearer ${key}` }),
      ...override.headers,
    },
    body: JSON.stringify(override.body ?? { action: 'context', workspace_id: f.workspaceId }),
  };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A read sent over a real socket, as integrators send it. */
function sendOverHttp(
  port: number,
  read: Read,
  options: { method?: string; path?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? PATH,
        headers: { ...read.headers, 'content-length': String(Buffer.byteLength(read.body)) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers))
            if (typeof value === 'string') headers[name] = value;
          resolve({ status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString() });
        });
      },
    );
    request.on('error', reject);
    request.end(read.body);
  });
}

/** The request line and headers of `read` as a raw-socket client writes them, up to the body. */
function requestHead(read: Read, contentLength: number): string {
  const headers = { ...read.headers, host: 'localhost', 'content-length': String(contentLength) };
  return crlf(
    `POST ${PATH} HTTP/1.1`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  );
}

/** A read whose client goes away after sending the headers and part of the body. */
function sendPartOfBody(port: number, read: Read): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`${requestHead(read, 200)}${read.body.slice(0, 20)}`);
      setTimeout(() => socket.destroy(), 100);
    });
    socket.on('close', () => {
      resolve();
    });
  });
}

/** The same read through the router alone (Fastify's inject never reaches the HTTP server's handler). */
async function sendThroughRouter(f: Fixture, read: Read): Promise<Answer> {
  const response = await f.app.inject({
    method: 'POST',
    url: PATH,
    headers: read.headers,
    payload: read.body,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers))
    if (typeof value === 'string') headers[name] = value;
    else if (typeof value === 'number') headers[name] = String(value);
  return { status: response.statusCode, headers, body: response.body };
}

/** What must be the same whichever way a read was answered: all but per-request and per-connection values. */
function comparable(answer: Answer) {
  const varying = new Set(['date', 'connection', 'keep-alive', 'x-request-id', 'transfer-encoding']);
  const headers = Object.fromEntries(
    Object.entries(answer.headers)
      .filter(([name]) => !varying.has(name))
      // Each read takes one from the budget: what is left differs by one, the shape must not.
      .map(([name, value]) => [name, name === 'ratelimit' ? value.replace(/r=\d+/, 'r=…') : value]),
  );
  const body = answer.body.replace(/"request_id":"[^"]+"/, '"request_id":"…"');
  return { status: answer.status, headers, body };
}

describeEachBackend('POST /functions/v1/brand-agent: the fast lane answers as the route does', (backend) => {
  const fixture = useFixture(backend, {
    app: { logLevel: 'info', readLimits: { limit: { points: 1_000_000, windowMs: 60_000 } } },
  });
  let port = 0;
  beforeAll(async () => {
    port = await listenOnLoopback(fixture().app);
  });

  const reads: [string, (f: Fixture) => Promise<Read> | Read][] = [
    ['the usual read', (f) => usualRead(f)],
    [
      'the Markdown view',
      (f) => usualRead(f, { body: { action: 'context', workspace_id: f.workspaceId, format: 'markdown' } }),
    ],
    [
      'the design tokens',
      (f) => usualRead(f, { body: { action: 'context', workspace_id: f.workspaceId, format: 'dtcg' } }),
    ],
    [
      'a read of some sections',
      (f) =>
        usualRead(f, {
          body: { action: 'context', workspace_id: f.workspaceId, sections: ['voice', 'colors'] },
        }),
    ],
    [
      'a read filtering knowledge',
      (f) =>
        usualRead(f, { body: { action: 'context', workspace_id: f.workspaceId, knowledge_kinds: ['fact'] } }),
    ],
    ['a stale If-None-Match', (f) => usualRead(f, { headers: { 'if-none-match': '"stale"' } })],
    ['a read without a key', (f) => usualRead(f, { key: null })],
    ['a malformed key', (f) => usualRead(f, { key: 'brk_nope' })],
    ['another scheme', (f) => usualRead(f, { key: null, headers: { authorization: `Basic ${f.brandKey}` } })],
    ['a well-formed key nobody knows', (f) => usualRead(f, { key: BRAND_KEY.generate() })],
    [
      'a revoked key',
      async (f) => {
        const created = await createBrandKey(f.deps, OPERATOR, {
          workspaceId: f.workspaceId,
          name: 'revoked',
        });
        await revokeBrandKey(f.deps, OPERATOR, f.workspaceId, created.id);
        return usualRead(f, { key: created.key });
      },
    ],
    ['a key of another workspace', (f) => usualRead(f, { key: f.otherBrandKey })],
    [
      'a workspace that does not exist',
      (f) => usualRead(f, { body: { action: 'context', workspace_id: 'ws_000000000000000000000000' } }),
    ],
    ['another action', (f) => usualRead(f, { body: { action: 'publish', workspace_id: f.workspaceId } })],
    ['a body that is not JSON', (f) => ({ ...usualRead(f), body: '{"action":' })],
    ['an empty object', (f) => usualRead(f, { body: {} })],
    [
      'an unknown field',
      (f) => usualRead(f, { body: { action: 'context', workspace_id: f.workspaceId, extra: 1 } }),
    ],
    [
      'a workspace id over 128 characters',
      (f) => usualRead(f, { body: { action: 'context', workspace_id: 'w'.repeat(129) } }),
    ],
    [
      'a body naming __proto__',
      (f) => ({
        ...usualRead(f),
        body: `{"action":"context","workspace_id":"${f.workspaceId}","__proto__":{}}`,
      }),
    ],
    ['a text/plain body', (f) => usualRead(f, { headers: { 'content-type': 'text/plain' } })],
    ['a member’s user token', (f) => usualRead(f, { key: f.member.token })],
    ['a user token of someone outside the workspace', (f) => usualRead(f, { key: f.otherOwner.token })],
  ];

  it.each(reads)('%s', async (_name, make) => {
    const f = fixture();
    const read = await make(f);
    const overHttp = await sendOverHttp(port, read);
    const throughRouter = await sendThroughRouter(f, read);
    expect(overHttp.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(comparable(overHttp)).toEqual(comparable(throughRouter));
  });

  it('answers If-None-Match with the current ETag 304, with no body, as the route does', async () => {
    const f = fixture();
    const { etag } = (await sendOverHttp(port, usualRead(f))).headers;
    const read = usualRead(f, { headers: { 'if-none-match': etag ?? '' } });
    const overHttp = await sendOverHttp(port, read);
    expect(overHttp.status).toBe(304);
    expect(overHttp.body).toBe('');
    expect(comparable(overHttp)).toEqual(comparable(await sendThroughRouter(f, read)));
  });

  it('leaves a body cut short by its client to the route, which logs it as a client error and serves on', async () => {
    const f = fixture();
    const logged = f.logs.length;
    await sendPartOfBody(port, usualRead(f));
    await expect.poll(() => f.logs.slice(logged).join('')).toContain('"status":400');
    expect(f.logs.slice(logged).join('')).not.toContain('"status":500');
    expect((await sendOverHttp(port, usualRead(f))).status).toBe(200);
  });

  it('keeps the X-Request-Id a load balancer sent', async () => {
    const f = fixture();
    const id = '7f9c2ba4-e88f-4c2e-9b3a-6a1d2c3b4e5f';
    const answer = await sendOverHttp(port, usualRead(f, { headers: { 'x-request-id': id } }));
    expect(answer.headers['x-request-id']).toBe(id);
  });

  it('counts every read it answers in GET /metrics, under the route and in the read histogram', async () => {
    const f = fixture();
    const count = async () => {
      const text = (await f.app.inject({ method: 'GET', url: '/metrics' })).body;
      const requests =
        /brand_context_http_requests_total\{route="\/functions\/v1\/brand-agent",method="POST",status="200"\} (\d+)/.exec(
          text,
        );
      const histogram = /brand_context_read_duration_seconds_count (\d+)/.exec(text);
      return { requests: Number(requests?.[1] ?? 0), histogram: Number(histogram?.[1] ?? 0) };
    };
    const before = await count();
    for (let read = 0; read < 5; read++) expect((await sendOverHttp(port, usualRead(f))).status).toBe(200);
    const after = await count();
    expect(after.requests - before.requests).toBe(5);
    expect(after.histogram - before.histogram).toBe(5);
  });
});

describeEachBackend('POST /functions/v1/brand-agent: the fast lane and the read budget', (backend) => {
  const fixture = useFixture(backend, {
    app: { logLevel: 'info', readLimits: { limit: { points: 3, windowMs: 60_000 } } },
  });

  it('takes one read from the budget whether it answers or the route does', async () => {
    const f = fixture();
    const port = await listenOnLoopback(f.app);
    const { key } = await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'budget' });
    const usual = usualRead(f, { key });
    const withSections = usualRead(f, {
      key,
      body: { action: 'context', workspace_id: f.workspaceId, sections: ['voice'] },
    });
    const answers = [
      await sendOverHttp(port, usual),
      await sendOverHttp(port, withSections),
      await sendOverHttp(port, usual),
      await sendOverHttp(port, withSections),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((answer) => answer.headers.ratelimit?.replace(/;t=\d+/, ''))).toEqual([
      '"reads";r=2',
      '"reads";r=1',
      '"reads";r=0',
      '"reads";r=0',
    ]);
    expect(answers[3]?.headers['retry-after']).toMatch(/^\d+$/);
    expect(JSON.parse(answers[3]?.body ?? '{}')).toMatchObject({ code: 'rate_limited' });
  });
});

/** The fast lane alone in a node:http server, with a stand-in router that records what it was handed. */
function laneServer(f: Fixture, level: string) {
  const handed: { learned: HandedOverRead | undefined }[] = [];
  const lane = brandAgentFastLane(f.app.services, undefined, { level });
  const server: Server = createServer({ IncomingMessage: CapturingRequest }, (request, response) => {
    lane(request, response, (routed: IncomingMessage, answer) => {
      handed.push({ learned: handedOverRead(routed) });
      answer.writeHead(418).end();
    });
  });
  return { server, handed };
}

describeEachBackend('The read operation’s fast lane, on its own', (backend) => {
  const fixture = useFixture(backend, {
    app: { logLevel: 'info', readLimits: { limit: { points: 2, windowMs: 60_000 } } },
  });
  let lane: ReturnType<typeof laneServer>;
  let port = 0;
  beforeAll(async () => {
    lane = laneServer(fixture(), 'info');
    await new Promise<void>((resolve) => lane.server.listen(0, '127.0.0.1', resolve));
    port = (lane.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    lane.server.closeAllConnections();
    await new Promise((resolve) => lane.server.close(resolve));
  });
  const routed = () => lane.handed.splice(0);

  async function newKey(f: Fixture): Promise<string> {
    return (await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'lane' })).key;
  }

  it('answers the usual read itself, without the router', async () => {
    const f = fixture();
    const answer = await sendOverHttp(port, usualRead(f, { key: await newKey(f) }));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.body)).toMatchObject({ workspace_id: f.workspaceId, name: 'Acme Coffee' });
    expect(routed()).toEqual([]);
  });

  it('answers a read whose body arrives after its headers, in pieces, as one sent at once', async () => {
    const f = fixture();
    const read = usualRead(f, { key: await newKey(f) });
    const socket = connect(port, '127.0.0.1');
    const answers = receiver(socket);
    socket.write(requestHead(read, Buffer.byteLength(read.body)));
    setTimeout(() => socket.write(read.body.slice(0, 10)), 50);
    setTimeout(() => socket.write(read.body.slice(10)), 100);
    const answer = await answers.until((data) => parseResponses(data)[0]);
    socket.destroy();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ workspace_id: f.workspaceId, name: 'Acme Coffee' });
    expect(routed()).toEqual([]);
  });

  it('answers a read whose client sends the body only after 100 Continue', async () => {
    const f = fixture();
    const read = usualRead(f, { key: await newKey(f) });
    const socket = connect(port, '127.0.0.1');
    const answers = receiver(socket);
    const head = requestHead(read, Buffer.byteLength(read.body));
    socket.write(`${head.slice(0, -2)}expect: 100-continue\r\n\r\n`);
    await answers.until((data) => (data.includes('HTTP/1.1 100 Continue\r\n\r\n') ? true : undefined));
    socket.write(read.body);
    const answer = await answers.until((data) => parseResponses(data)[0]);
    socket.destroy();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ workspace_id: f.workspaceId, name: 'Acme Coffee' });
    expect(routed()).toEqual([]);
  });

  it('hands a read of some sections to the router with the credential, the budget it took and the body it read', async () => {
    const f = fixture();
    const read = usualRead(f, {
      key: await newKey(f),
      body: { action: 'context', workspace_id: f.workspaceId, sections: ['voice'] },
    });
    expect((await sendOverHttp(port, read)).status).toBe(418);
    const [handed] = routed();
    const learned = handed?.learned;
    expect(learned?.body).toEqual(Buffer.from(read.body));
    expect(await learned?.principal).toMatchObject({ kind: 'key', workspaceId: f.workspaceId });
    expect(await learned?.limit).toMatch(/^"reads";r=1;t=\d+$/);
    expect(learned?.access).toBeUndefined();
  });

  it('hands an unknown key to the router with its refusal and the body it read for the workspace the signature needs', async () => {
    const f = fixture();
    await vi.waitFor(() => {
      expect(f.app.services.credentials.verifiesBySignature('brand')).toBe(true);
    });
    const read = usualRead(f, { key: BRAND_KEY.generate() });
    expect((await sendOverHttp(port, read)).status).toBe(418);
    const [handed] = routed();
    await expect(handed?.learned?.principal).rejects.toMatchObject({ code: 'invalid_key' });
    expect(handed?.learned?.body).toEqual(Buffer.from(read.body));
    expect(handed?.learned?.limit).toBeUndefined();
  });

  it('hands a malformed key to the router with its refusal, before reading the body', async () => {
    const f = fixture();
    const key = BRAND_KEY.generate();
    expect((await sendOverHttp(port, usualRead(f, { key: `${key.slice(0, -1)}!` }))).status).toBe(418);
    const [handed] = routed();
    await expect(handed?.learned?.principal).rejects.toMatchObject({ code: 'malformed_key' });
    expect(handed?.learned?.body).toBeUndefined();
  });

  it('hands a read over its budget to the router with the 429, before reading the body', async () => {
    const f = fixture();
    const read = usualRead(f, { key: await newKey(f) });
    expect((await sendOverHttp(port, read)).status).toBe(200);
    expect((await sendOverHttp(port, read)).status).toBe(200);
    expect((await sendOverHttp(port, read)).status).toBe(418);
    const [handed] = routed();
    await expect(handed?.learned?.limit).rejects.toBeInstanceOf(AppError);
    await expect(handed?.learned?.limit).rejects.toMatchObject({ code: 'rate_limited' });
    expect(handed?.learned?.body).toBeUndefined();
  });

  it('hands a body cut short by the client to the router with the error that ended it', async () => {
    const f = fixture();
    const read = usualRead(f, { key: await newKey(f) });
    await sendPartOfBody(port, read);
    await expect.poll(() => lane.handed.length).toBe(1);
    const [handed] = routed();
    expect(handed?.learned?.body).toBeInstanceOf(Error);
    expect(await handed?.learned?.principal).toMatchObject({ kind: 'key' });
  });

  it('hands a key of another workspace to the router with the refusal of its access', async () => {
    const f = fixture();
    expect((await sendOverHttp(port, usualRead(f, { key: f.otherBrandKey }))).status).toBe(418);
    const [handed] = routed();
    await expect(handed?.learned?.access).rejects.toMatchObject({ code: 'workspace_forbidden' });
  });

  it('leaves another method, a query string, a chunked body or a large one to the router untouched', async () => {
    const f = fixture();
    const read = usualRead(f, { key: await newKey(f) });
    await sendOverHttp(port, read, { method: 'PUT' });
    await sendOverHttp(port, read, { path: `${PATH}?x=1` });
    await sendOverHttp(port, { ...read, body: ' '.repeat(5000) + read.body });
    const chunked = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port, method: 'POST', path: PATH, headers: read.headers },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.write(read.body.slice(0, 10));
      request.end(read.body.slice(10));
    });
    expect(chunked).toBe(418);
    expect(routed()).toEqual([
      { learned: undefined },
      { learned: undefined },
      { learned: undefined },
      { learned: undefined },
    ]);
  });
});

describeEachBackend('The read operation’s fast lane with the access log at debug', (backend) => {
  const fixture = useFixture(backend, { app: { logLevel: 'info' } });

  it('leaves every read to the router, which logs each success', async () => {
    const f = fixture();
    const { server, handed } = laneServer(f, 'debug');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await sendOverHttp((server.address() as AddressInfo).port, usualRead(f));
      expect(answer.status).toBe(418);
      expect(handed).toEqual([{ learned: undefined }]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
