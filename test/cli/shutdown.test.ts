import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DemoSeed } from '../../src/services/demo.js';
import { describeEachBackend, type TestDatabase } from '../support/databases.js';
import { keysIn, killAllChildren, runCliJson, ServerProcess } from './cli-process.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Collects what the socket receives; `until` resolves once the text so far satisfies a test. */
function receiver(socket: Socket) {
  let received = Buffer.alloc(0);
  const waiters = new Set<() => void>();
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    for (const waiter of waiters) waiter();
  });
  socket.on('close', () => {
    for (const waiter of waiters) waiter();
  });
  return {
    until<T>(parse: (data: Buffer) => T | undefined, timeoutMs = 5000): Promise<T> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const value = parse(received);
          if (value !== undefined) {
            finish();
            resolve(value);
          } else if (socket.closed) {
            finish();
            reject(new Error(`the connection closed; received:\n${received.toString('latin1')}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(`nothing complete within ${timeoutMs} ms; received:\n${received.toString('latin1')}`),
          );
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** The final (non-1xx) response in `data`, once its headers and Content-Length bytes of body have arrived. */
function completeResponse(data: Buffer): RawResponse | undefined {
  let offset = 0;
  for (;;) {
    const headerEnd = data.indexOf('\r\n\r\n', offset);
    if (headerEnd === -1) return undefined;
    const [statusLine = '', ...headerLines] = data
      .subarray(offset, headerEnd)
      .toString('latin1')
      .split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
    if (status >= 100 && status < 200) {
      offset = headerEnd + 4;
      continue;
    }
    const headers = Object.fromEntries(
      headerLines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const length = Number(headers['content-length']);
    const body = data.subarray(headerEnd + 4);
    if (!Number.isInteger(length) || body.length < length) return undefined;
    return { status, headers, body: body.subarray(0, length).toString('utf8') };
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

  it('finishes a request whose body is still arriving when SIGTERM comes, then exits 0 after logging "stopped"', async () => {
    const body = JSON.stringify({ action: 'context', workspace_id: seed.workspace_id });
    const half = Math.floor(body.length / 2);
    const socket = connect(server.port, '127.0.0.1');
    const received = receiver(socket);
    await once(socket, 'connect');
    // Expect: 100-continue makes the server say when it has read the headers: the request is then in flight.
    socket.write(
      [
        'POST /functions/v1/brand-agent HTTP/1.1',
        `Host: 127.0.0.1:${server.port}`,
        `Authorization: Bearer ${seed.brand_read_key}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Expect: 100-continue',
        '',
        body.slice(0, half),
      ].join('\r\n'),
    );
    await received.until((data) => (data.includes('HTTP/1.1 100 Continue\r\n\r\n') ? true : undefined));

    server.child.kill('SIGTERM');
    await server.waitForStdout(/"msg":"shutting down: finishing in-flight requests"/);
    expect(server.running).toBe(true);
    socket.write(body.slice(half));

    const response = await received.until(completeResponse);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toMatchObject({ workspace_id: seed.workspace_id, name: 'Acme Coffee' });
    socket.destroy();

    expect(await server.waitForExit()).toEqual({ code: 0, signal: null });
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
});
