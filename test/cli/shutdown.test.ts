import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DemoSeed } from '../../src/services/demo/demo.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { closedSocket, crlf, parseResponses, type RawResponse, receiver } from '#test/support/raw-http.js';
import { keysIn, killAllChildren, runCliJson, ServerProcess } from './cli-process.js';

/** The nth (0-based) final response in `data`, once it has arrived whole. */
function nthResponse(n: number): (data: Buffer) => RawResponse | undefined {
  return (data) => parseResponses(data)[n];
}

function readRequest(port: number, seed: DemoSeed): string {
  const body = JSON.stringify({ action: 'context', workspace_id: seed.workspace_id });
  return crlf(
    'POST /functions/v1/brand-agent HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${seed.brand_read_key}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  );
}

async function open(port: number): Promise<{ socket: Socket; incoming: ReturnType<typeof receiver> }> {
  const socket = connect(port, '127.0.0.1');
  const incoming = receiver(socket);
  await once(socket, 'connect');
  return { socket, incoming };
}

/** The 503 every request refused during shutdown gets. */
function expectShutdownRefusal(response: RawResponse | undefined): void {
  expect(response?.status).toBe(503);
  expect(response?.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(response?.headers['retry-after']).toMatch(/^\d+$/);
  expect(response?.headers.connection).toBe('close');
  expect(JSON.parse(response?.body ?? '')).toMatchObject({
    status: 503,
    code: 'service_unavailable',
    detail: expect.any(String) as string,
    resolution: expect.any(String) as string,
    request_id: expect.any(String) as string,
  });
}

interface ClientOutcome {
  answered: number;
  /** The response that ended the connection (it said Connection: close). */
  last?: RawResponse;
  /** What went wrong: a reset, or a connection closed with a request unanswered. */
  failure?: string;
}

/** A client that keeps reading brand context on one keep-alive connection until the server ends it. */
async function keepReading(port: number, request: string, onAnswer: () => void): Promise<ClientOutcome> {
  const { socket, incoming } = await open(port);
  const closed = closedSocket(socket);
  for (let answered = 0; ;) {
    socket.write(request);
    let response: RawResponse;
    try {
      response = await incoming.until(nthResponse(answered), 10_000);
    } catch (error) {
      const { reset } = await closed;
      const why = reset ? 'reset' : (error as Error).message.split('\n')[0];
      return { answered, failure: `request ${answered + 1}: ${why}` };
    }
    answered += 1;
    onAnswer();
    if (response.headers.connection === 'close') {
      const { reset } = await closed;
      return { answered, last: response, ...(reset && { failure: 'reset after Connection: close' }) };
    }
  }
}

describeEachBackend('brand-context serve: health endpoints and graceful shutdown', (backend) => {
  let database: TestDatabase;
  let seed: DemoSeed;
  let server: ServerProcess;

  beforeAll(async () => {
    database = await backend.create();
    seed = await runCliJson<DemoSeed>(['seed', '--json'], { databaseUrl: database.url });
    server = await ServerProcess.start([], { databaseUrl: database.url });
  });

  afterAll(async () => {
    await killAllChildren();
    await database.drop();
  });

  it('answers GET /healthz with 200 {"status":"ok"}', async () => {
    const response = await fetch(`${server.baseUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers GET /readyz with 200 and "status":"ready"', async () => {
    const response = await fetch(`${server.baseUrl}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', database: backend.name });
  });

  it('on SIGTERM finishes the request in flight with Connection: close, answers one arriving on a kept-alive connection with 503 problem+json, closes idle connections cleanly, and exits 0 after logging "stopped"', async () => {
    const request = readRequest(server.port, seed);
    const bodyStart = request.indexOf('\r\n\r\n') + 4;
    // In flight: Expect: 100-continue makes the server say when it has read the headers.
    const inFlight = await open(server.port);
    inFlight.socket.write(
      `${request.slice(0, bodyStart - 2)}Expect: 100-continue\r\n\r\n${request.slice(bodyStart, bodyStart + 10)}`,
    );
    await inFlight.incoming.until((data) =>
      data.includes('HTTP/1.1 100 Continue\r\n\r\n') ? true : undefined,
    );
    // Kept alive after one answer, with the next request's head still arriving when the signal comes.
    const keptAlive = await open(server.port);
    keptAlive.socket.write(request);
    expect((await keptAlive.incoming.until(nthResponse(0))).headers.connection).toBe('keep-alive');
    keptAlive.socket.write(request.slice(0, bodyStart - 2));
    // Idle: answered once, then silent.
    const idle = await open(server.port);
    const idleClosed = closedSocket(idle.socket);
    idle.socket.write(request);
    await idle.incoming.until(nthResponse(0));

    server.child.kill('SIGTERM');
    await server.waitForStdout(/"msg":"shutting down: finishing in-flight requests"/);
    expect(server.running).toBe(true);

    keptAlive.socket.write(request.slice(bodyStart - 2));
    expectShutdownRefusal(await keptAlive.incoming.until(nthResponse(1)));

    inFlight.socket.write(request.slice(bodyStart + 10));
    const finished = await inFlight.incoming.until(nthResponse(0));
    expect(finished.status).toBe(200);
    expect(finished.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(finished.headers.connection).toBe('close');
    expect(JSON.parse(finished.body)).toMatchObject({ workspace_id: seed.workspace_id, name: 'Acme Coffee' });

    expect(await idleClosed).toEqual({ reset: false });
    expect(await server.waitForExit(), server.describe()).toEqual({ code: 0, signal: null });
    expect(server.logLines().some((line) => line.includes('"msg":"stopped"'))).toBe(true);
    expect(server.stderr).toBe('');
  });

  it('closes the database cleanly on SIGTERM (SQLite: no -wal file is left next to it)', () => {
    expect(server.running).toBe(false);
    if (database.config.kind === 'sqlite') {
      expect(existsSync(database.config.path)).toBe(true);
      expect(existsSync(`${database.config.path}-wal`)).toBe(false);
    }
  });

  it('never writes the brand read key it was sent to its logs', () => {
    expect(keysIn(server.stdout + server.stderr)).toEqual([]);
    expect(server.stdout).not.toContain(seed.brand_read_key);
  });

  it('resets none of 32 keep-alive connections reading brand context in a loop when SIGTERM comes: each ends on an answer with Connection: close', async () => {
    const loaded = await ServerProcess.start([], { databaseUrl: database.url });
    const request = readRequest(loaded.port, seed);
    let answers = 0;
    let signalled = false;
    const clients = Array.from({ length: 32 }, () =>
      keepReading(loaded.port, request, () => {
        answers += 1;
        // Once every connection is busy, the signal lands amid requests in flight, arriving and in between.
        if (answers === 32 * 5 && !signalled) {
          signalled = true;
          loaded.child.kill('SIGTERM');
        }
      }),
    );
    const outcomes = await Promise.all(clients);

    expect(signalled).toBe(true);
    expect(outcomes.filter((outcome) => outcome.failure !== undefined)).toEqual([]);
    for (const { last } of outcomes) {
      if (last?.status === 200)
        expect(JSON.parse(last.body)).toMatchObject({ workspace_id: seed.workspace_id });
      else expectShutdownRefusal(last);
    }
    expect(await loaded.waitForExit(), loaded.describe()).toEqual({ code: 0, signal: null });
    expect(keysIn(loaded.stdout + loaded.stderr)).toEqual([]);
  });
});
