import { connect } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { BRAND_KEY } from '../../core/secret-keys.js';
import { listenOnLoopback } from '#test/support/app.js';
import { describeEachBackend } from '#test/support/databases.js';
import { PATH } from '#test/support/fixtures/brand-agent.js';
import { type Fixture, useFixture } from '#test/support/http-fixture.js';
import { crlf, exchange, parseResponses, receiver } from '#test/support/raw-http.js';

interface LogLine {
  level: number;
  msg: string;
  request_id?: string;
  method?: string;
  url?: string;
  status?: number;
}

/** The request line and headers of a read, up to its body, as a raw-socket client writes them. */
function head(f: Fixture, headers: Record<string, string>, path = PATH): string {
  const all: Record<string, string> = {
    host: 'localhost',
    authorization: `Bearer ${f.brandKey}`,
    'content-type': 'application/json',
    ...headers,
  };
  return crlf(
    `POST ${path} HTTP/1.1`,
    ...Object.entries(all).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  );
}

/**
 * The read operation as clients send it, over a socket, where the HTTP server hands it each request before
 * the router: however its body arrives, what it logs and counts.
 */
describeEachBackend('POST /functions/v1/brand-agent over a socket', (backend) => {
  const fixture = useFixture(backend);
  let port = 0;
  beforeAll(async () => {
    port = await listenOnLoopback(fixture().app);
  });
  const usualBody = () => JSON.stringify({ action: 'context', workspace_id: fixture().workspaceId });

  async function readOf(data: string): Promise<{ status: number; body: string }> {
    const [response] = (await exchange(port, data, { responses: 1 })).responses;
    return { status: response?.status ?? 0, body: response?.body ?? '' };
  }

  it('answers a read whose body arrives after its headers, in pieces, as one sent at once', async () => {
    const f = fixture();
    const body = usualBody();
    const socket = connect(port, '127.0.0.1');
    const answers = receiver(socket);
    socket.write(head(f, { 'content-length': String(body.length) }));
    setTimeout(() => socket.write(body.slice(0, 10)), 50);
    setTimeout(() => socket.write(body.slice(10)), 100);
    const answer = await answers.until((data) => parseResponses(data)[0]);
    socket.destroy();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ workspace_id: f.workspaceId, name: 'Acme Coffee' });
  });

  it('answers a read whose client sends the body only after 100 Continue', async () => {
    const f = fixture();
    const body = usualBody();
    const socket = connect(port, '127.0.0.1');
    const answers = receiver(socket);
    socket.write(head(f, { 'content-length': String(body.length), expect: '100-continue' }));
    await answers.until((data) => (data.includes('HTTP/1.1 100 Continue\r\n\r\n') ? true : undefined));
    socket.write(body);
    const answer = await answers.until((data) => parseResponses(data)[0]);
    socket.destroy();
    expect(answer.status).toBe(200);
  });

  it('answers a chunked body, and a path with a query, as the usual read', async () => {
    const f = fixture();
    const body = usualBody();
    const chunked = `${head(f, { 'transfer-encoding': 'chunked' })}${crlf(
      (10).toString(16),
      body.slice(0, 10),
      (body.length - 10).toString(16),
      body.slice(10),
      '0',
      '',
      '',
    )}`;
    const withQuery = `${head(f, { 'content-length': String(body.length) }, `${PATH}?via=proxy`)}${body}`;
    for (const request of [chunked, withQuery]) {
      const answer = await readOf(request);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ workspace_id: f.workspaceId });
    }
  });

  it('refuses a body declared over 16 KiB with 413 before reading it, and closes the connection', async () => {
    const f = fixture();
    const result = await exchange(port, head(f, { 'content-length': String(16 * 1024 + 1) }), {
      responses: 1,
    });
    expect(result.responses[0]?.status).toBe(413);
    expect(result.responses[0]?.headers.connection).toBe('close');
    expect(JSON.parse(result.responses[0]?.body ?? '{}')).toMatchObject({ code: 'payload_too_large' });
    expect(result.closed).toBe(true);
  });

  it('logs a read whose client went away mid-body as a client error, and serves the next read', async () => {
    const f = fixture();
    const logged = f.logs.length;
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`${head(f, { 'content-length': '200' })}${usualBody().slice(0, 20)}`);
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('close', () => {
        resolve();
      });
    });
    const lines = () => f.logs.slice(logged).map((line) => JSON.parse(line) as LogLine);
    await expect.poll(() => lines().find((line) => line.url === PATH)?.status).toBe(400);
    expect(lines().some((line) => (line.status ?? 0) >= 500)).toBe(false);
    expect(
      (await readOf(`${head(f, { 'content-length': String(usualBody().length) })}${usualBody()}`)).status,
    ).toBe(200);
  });

  it('logs each answer once with its request id, a refusal at info and a success at debug, and counts each', async () => {
    const f = fixture();
    const metrics = async () => (await f.app.inject({ method: 'GET', url: '/metrics' })).body;
    const count = (text: string, status: number) =>
      Number(
        new RegExp(
          `brand_context_http_requests_total\\{route="${PATH}",method="POST",status="${String(status)}"\\} (\\d+)`,
        ).exec(text)?.[1] ?? 0,
      );
    const before = await metrics();
    const logged = f.logs.length;
    const body = usualBody();
    const sent = [
      await exchange(port, `${head(f, { 'content-length': String(body.length) })}${body}`, { responses: 1 }),
      await exchange(
        port,
        `${head(f, { 'content-length': String(body.length), authorization: `Bearer ${BRAND_KEY.generate()}` })}${body}`,
        { responses: 1 },
      ),
    ];
    const answers = sent.map((result) => result.responses[0]);
    expect(answers.map((answer) => answer?.status)).toEqual([200, 401]);
    const lines = f.logs
      .slice(logged)
      .map((line) => JSON.parse(line) as LogLine)
      .filter((line) => line.msg === 'request');
    expect(
      lines.map(({ level, status, method, url, request_id }) => ({ level, status, method, url, request_id })),
    ).toEqual(
      answers.map((answer) => ({
        level: answer?.status === 200 ? 20 : 30,
        status: answer?.status,
        method: 'POST',
        url: PATH,
        request_id: answer?.headers['x-request-id'],
      })),
    );
    const after = await metrics();
    expect([count(after, 200) - count(before, 200), count(after, 401) - count(before, 401)]).toEqual([1, 1]);
  });

  it('logs and counts a read that reaches the router (inject) once, as it does one over a socket', async () => {
    const f = fixture();
    const requests = async (status: number) =>
      Number(
        new RegExp(
          `brand_context_http_requests_total\\{route="${PATH}",method="POST",status="${String(status)}"\\} (\\d+)`,
        ).exec((await f.app.inject({ method: 'GET', url: '/metrics' })).body)?.[1] ?? 0,
      );
    const before = await requests(401);
    const logged = f.logs.length;
    const answer = await f.app.inject({
      method: 'POST',
      url: PATH,
      headers: { authorization: `Bearer ${BRAND_KEY.generate()}`, 'content-type': 'application/json' },
      payload: usualBody(),
    });
    expect(answer.statusCode).toBe(401);
    const lines = f.logs
      .slice(logged)
      .map((line) => JSON.parse(line) as LogLine)
      .filter((line) => line.url === PATH);
    expect(lines.map(({ status, request_id }) => ({ status, request_id }))).toEqual([
      { status: 401, request_id: answer.headers['x-request-id'] },
    ]);
    expect((await requests(401)) - before).toBe(1);
  });
});
