import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { listenOnLoopback, startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { crlf, exchange, type RawExchange, type RawResponse } from '#test/support/raw-http.js';

const KEY_SHAPED = /(brk|wsk)_[0-9A-Za-z]{36}/;
/** Short timeouts, so that slow clients are cut off within the test. */
const TIMEOUTS = { headersMs: 400, requestMs: 800 };

interface LogLine {
  level: number;
  msg: string;
  request_id?: string;
  status?: number;
  method?: string;
  url?: string;
}

describeEachBackend('HTTP transport: errors below the router, timeouts and closing', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let port: number;
  let workspaceId: string;
  let key: string;

  beforeAll(async () => {
    database = await backend.create();
    testApp = await startTestApp(database, { httpTimeouts: TIMEOUTS });
    const workspace = await createWorkspace(testApp.deps, OPERATOR, { name: 'Acme Coffee' });
    workspaceId = workspace.id;
    key = (await createBrandKey(testApp.deps, OPERATOR, { workspaceId, name: 'pipeline' })).key;
    port = await listenOnLoopback(testApp.app);
  });

  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  function logLines(): LogLine[] {
    return testApp.logs.map((line) => JSON.parse(line) as LogLine);
  }

  /** A problem+json response with every field a client is promised, and what it says. */
  function expectProblem(
    response: RawResponse | undefined,
    status: number,
    code: string,
  ): Record<string, unknown> {
    expect(response?.status).toBe(status);
    expect(response?.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const body = JSON.parse(response?.body ?? '') as Record<string, unknown>;
    expect(body).toMatchObject({ status, code, type: `urn:brand-context:problem:${code}` });
    for (const field of ['title', 'detail', 'resolution', 'request_id']) {
      expect(typeof body[field], field).toBe('string');
    }
    return body;
  }

  /** The error ended the connection, said so, and was the last thing on it. */
  function expectClosedAfter(result: RawExchange, responses: number): void {
    expect(result.responses, result.raw).toHaveLength(responses);
    expect(result.responses.at(-1)?.headers.connection).toBe('close');
    expect(result.closed).toBe(true);
    expect(result.reset).toBe(false);
  }

  /** The failure was logged at info or above under the request_id of its body, with no raw request bytes. */
  function expectLogged(body: Record<string, unknown>, status: number): void {
    const lines = logLines().filter((line) => line.request_id === body.request_id);
    expect(lines.some((line) => line.level >= 30 && line.status === status)).toBe(true);
    for (const line of testApp.logs) {
      expect(line).not.toMatch(KEY_SHAPED);
      expect(line).not.toContain('rawPacket');
    }
  }

  it('answers a URL with bad percent-encoding with 400 bad_request problem+json that does not echo it, logged at info', async () => {
    for (const target of ['/%zz', '/%E0%A4%A', `/functions/v1/%zz${key}`, 'http://example.com/%zz']) {
      const result = await exchange(port, crlf(`GET ${target} HTTP/1.1`, 'Host: x', '', ''), {
        responses: 1,
      });
      const body = expectProblem(result.responses[0], 400, 'bad_request');
      expect(JSON.stringify(body)).not.toContain('%zz');
      expect(JSON.stringify(body)).not.toContain('%A4');
      expectLogged(body, 400);
    }
  });

  it('keeps the connection usable after a bad URL: the next pipelined request is answered', async () => {
    const result = await exchange(
      port,
      crlf('GET /%zz HTTP/1.1', 'Host: x', '', 'GET /healthz HTTP/1.1', 'Host: x', '', ''),
      { responses: 2 },
    );
    expectProblem(result.responses[0], 400, 'bad_request');
    expect(result.responses[1]?.status).toBe(200);
  });

  it('answers a path segment over 100 characters with 414 uri_too_long, without echoing the URL', async () => {
    const segment = `${key}${'x'.repeat(300)}`;
    const result = await exchange(
      port,
      crlf(`GET /api/v1/workspaces/${segment}/brand HTTP/1.1`, 'Host: x', '', ''),
      { responses: 1 },
    );
    const body = expectProblem(result.responses[0], 414, 'uri_too_long');
    expect(result.raw).not.toContain('xxxxxxxx');
    expect(result.raw).not.toMatch(KEY_SHAPED);
    expectLogged(body, 414);
  });

  it('answers a malformed request with 400 bad_request and Connection: close, never logging its bytes (Authorization included)', async () => {
    const requests = [
      crlf('FOO / HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`, '', ''),
      crlf('GET /healthz HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`, 'Bad Header: y', '', ''),
      crlf('POST /functions/v1/brand-agent HTTP/1.1', 'Host: x', 'Content-Length: abc', '', ''),
      crlf(
        'POST /functions/v1/brand-agent HTTP/1.1',
        'Host: x',
        `Authorization: Bearer ${key}`,
        'Content-Length: 5',
        'Transfer-Encoding: chunked',
        '',
        '0',
        '',
        '',
      ),
      crlf('GET /healthz HTTP/1.1', '', ''),
    ];
    for (const request of requests) {
      const result = await exchange(port, request, { responses: 1 });
      expectClosedAfter(result, 1);
      expectLogged(expectProblem(result.responses[0], 400, 'bad_request'), 400);
    }
  });

  it('answers CONNECT with 400 bad_request and closes the connection', async () => {
    const result = await exchange(port, crlf(`CONNECT ${key}.example:443 HTTP/1.1`, 'Host: x', '', ''), {
      responses: 1,
    });
    expectClosedAfter(result, 1);
    const body = expectProblem(result.responses[0], 400, 'bad_request');
    expect(result.raw).not.toMatch(KEY_SHAPED);
    expectLogged(body, 400);
  });

  it('answers request headers over 16 KiB with 431 headers_too_large and Connection: close, echoing none of them', async () => {
    for (const request of [
      crlf(`GET /${key}${'a'.repeat(20_000)} HTTP/1.1`, 'Host: x', '', ''),
      crlf('GET /healthz HTTP/1.1', 'Host: x', `X-Filler: ${key}${'b'.repeat(20_000)}`, '', ''),
    ]) {
      const result = await exchange(port, request, { responses: 1 });
      expectClosedAfter(result, 1);
      const body = expectProblem(result.responses[0], 431, 'headers_too_large');
      expect(result.raw).not.toContain('aaaaaaaa');
      expect(result.raw).not.toMatch(KEY_SHAPED);
      expectLogged(body, 431);
    }
  });

  it('answers an Expect other than 100-continue with 417 expectation_failed and Connection: close', async () => {
    const result = await exchange(
      port,
      crlf(
        'POST /functions/v1/brand-agent HTTP/1.1',
        'Host: x',
        'Expect: 200-ok',
        'Content-Length: 2',
        '',
        '{}',
      ),
      { responses: 1 },
    );
    expectClosedAfter(result, 1);
    expectLogged(expectProblem(result.responses[0], 417, 'expectation_failed'), 417);
  });

  it('answers the earlier pipelined requests before the malformed one that ends the connection', async () => {
    const result = await exchange(
      port,
      crlf(
        'POST /functions/v1/brand-agent HTTP/1.1',
        'Host: x',
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        `Content-Length: ${JSON.stringify({ action: 'context', workspace_id: workspaceId }).length}`,
        '',
        `${JSON.stringify({ action: 'context', workspace_id: workspaceId })}GET /healthz HTTP/1.1`,
        'Host: x',
        '',
        'FOO / HTTP/1.1',
        'Host: x',
        '',
        'GET /healthz HTTP/1.1',
        'Host: x',
        '',
        '',
      ),
      { responses: 4 },
    );
    expectClosedAfter(result, 3);
    expect(result.responses[0]?.status).toBe(200);
    expect(JSON.parse(result.responses[0]?.body ?? '')).toMatchObject({ workspace_id: workspaceId });
    expect(result.responses[1]?.status).toBe(200);
    expectProblem(result.responses[2], 400, 'bad_request');
  });

  it('answers a body that stops arriving with 408 request_timeout problem+json and closes the socket', async () => {
    const started = performance.now();
    const result = await exchange(
      port,
      crlf(
        'POST /functions/v1/brand-agent HTTP/1.1',
        'Host: x',
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        'Content-Length: 100',
        '',
        '{"action":',
      ),
      { responses: 2, timeoutMs: 10_000 },
    );
    expect(performance.now() - started).toBeLessThan(8_000);
    expectClosedAfter(result, 1);
    expectLogged(expectProblem(result.responses[0], 408, 'request_timeout'), 408);
  });

  it('answers headers that stop arriving with 408 request_timeout and closes the socket', async () => {
    const result = await exchange(port, crlf('GET /healthz HTTP/1.1', 'Host: x', 'X-Slow: '), {
      responses: 2,
      timeoutMs: 10_000,
    });
    expectClosedAfter(result, 1);
    expectLogged(expectProblem(result.responses[0], 408, 'request_timeout'), 408);
  });
});
