import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { listenOnLoopback, startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { exchange, type RawExchange } from '#test/support/raw-http.js';

/**
 * Generated raw requests over real sockets: malformed request lines, methods, targets, headers, framing and
 * bodies, alone, pipelined and kept alive. FUZZ_SEED=<n> replays a failing run; FUZZ_CASES sets how many.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const CASES = Number(process.env.FUZZ_CASES ?? 1_000);
const CONCURRENCY = 24;
const KEY_SHAPED = /(brk|wsk)_[0-9A-Za-z]{36}/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** mulberry32: small, seedable, good enough to pick cases. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Target {
  workspaceId: string;
  key: string;
}

interface FuzzCase {
  label: string;
  bytes: Buffer;
  /** Requests written, malformed ones included: at most this many answers are waited for. */
  requests: number;
  /** The client half-closes after writing: the server may then close after its answers. */
  endAfterWrite: boolean;
  /** Cut short anywhere, maybe between two requests: fewer answers may be due. */
  truncated: boolean;
}

function generator(random: () => number, target: Target) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chance = (p: number) => random() < p;
  const base62 = (length: number) =>
    Array.from({ length }, () => BASE62.charAt(Math.floor(random() * 62))).join('');
  const keyShaped = () => `${pick(['brk', 'wsk'])}_${base62(36)}`;
  const readBody = () => JSON.stringify({ action: 'context', workspace_id: target.workspaceId });

  const methods = [
    'GET',
    'POST',
    'PUT',
    'PATCH',
    'DELETE',
    'OPTIONS',
    'TRACE',
    'CONNECT',
    'FOO',
    'get',
    'G(T',
    'M-SEARCH',
    'PROPFIND',
    'LINK',
    '',
    'POST POST',
  ];
  const paths = () => [
    '/functions/v1/brand-agent',
    '/healthz',
    '/readyz',
    '/openapi.json',
    '/',
    '*',
    '/%zz',
    '/%E0%A4%A',
    '/%',
    `/functions/v1/brand-agent?key=${keyShaped()}`,
    `/${keyShaped()}`,
    `/api/v1/workspaces/${keyShaped()}x/brand`,
    `/api/v1/workspaces/${'w'.repeat(150)}/brand`,
    `/api/v1/workspaces/${target.workspaceId}/brand`,
    'http://example.com/healthz',
    `http://${keyShaped()}.example/%zz`,
    'http://x',
    '//healthz',
    '/../../etc/passwd',
    `/${'a'.repeat(20_000)}${keyShaped()}`,
    `/functions/v1/brand-agent/${'%41'.repeat(400)}`,
    '/\u00e9',
    '/a b',
    `example.com:443`,
  ];
  const versions = ['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.x', 'http/1.1', ''];

  function headerLines(hasBody: boolean, bodyLength: number): string[] {
    const lines: string[] = [];
    if (!chance(0.08)) lines.push(pick(['Host: 127.0.0.1', 'Host: x', `Host: ${keyShaped()}`, 'Host:']));
    if (chance(0.6)) {
      lines.push(
        pick([
          `Authorization: Bearer ${target.key}`,
          `Authorization: Bearer ${keyShaped()}`,
          `Authorization: ${keyShaped()}`,
          'Authorization: Basic Zm9vOmJhcg==',
          `Authorization: Bearer ${target.key.slice(0, -1)}`,
        ]),
      );
    }
    if (chance(0.5))
      lines.push(pick(['Content-Type: application/json', 'Content-Type: text/plain', 'Content-Type: ;']));
    if (chance(0.2)) lines.push(`X-Request-Id: ${pick([keyShaped(), base62(64), 'a\tb', ''])}`);
    if (chance(0.15)) lines.push(`Expect: ${pick(['100-continue', '200-ok', 'foo', ''])}`);
    if (chance(0.1)) lines.push(`If-None-Match: ${pick(['"x"', '*', keyShaped()])}`);
    if (chance(0.05)) lines.push(`X-Filler: ${'f'.repeat(20_000)}${keyShaped()}`);
    if (chance(0.05))
      lines.push(
        pick([`Bad Header: ${keyShaped()}`, 'NoColon', `X-Fold: a\r\n  ${keyShaped()}`, 'X-Nul: a\0b']),
      );
    if (chance(0.05)) lines.push(`${keyShaped()}: ${keyShaped()}`);
    // Framing: mostly honest, sometimes contradictory or broken.
    if (hasBody) {
      lines.push(
        pick([
          `Content-Length: ${bodyLength}`,
          `Content-Length: ${bodyLength}`,
          `Content-Length: ${bodyLength}`,
          `Content-Length: ${bodyLength + 20}`,
          `Content-Length: ${Math.max(0, bodyLength - 3)}`,
          'Content-Length: abc',
          'Content-Length: -1',
          `Content-Length: ${bodyLength}, ${bodyLength}`,
          `Content-Length: ${bodyLength}\r\nContent-Length: ${bodyLength + 1}`,
          `Content-Length: ${bodyLength}\r\nTransfer-Encoding: chunked`,
          'Transfer-Encoding: gzip, chunked',
          'Transfer-Encoding: chunked, gzip',
          'Content-Length: 99999999999999999999',
        ]),
      );
    }
    return lines;
  }

  function body(): string {
    return pick([
      readBody(),
      readBody(),
      '{"action":"context"',
      '{"action":"context","workspace_id":"ws_x","extra":1}',
      `{"action":"${keyShaped()}","workspace_id":"${keyShaped()}"}`,
      'not json',
      '',
      '[]',
      `{"workspace_id":${'['.repeat(100)}`,
    ]);
  }

  /** One request, well-formed or not; chunked bodies are framed (or misframed) here. */
  function request(): string {
    if (chance(0.25)) {
      // A valid read, a conditional read or a health probe: the successful answers are checked too.
      return pick([
        `POST /functions/v1/brand-agent HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${target.key}\r\nContent-Type: application/json\r\nContent-Length: ${readBody().length}\r\n\r\n${readBody()}`,
        'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
        `GET /api/v1/workspaces/${target.workspaceId}/brand HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${target.key}\r\n\r\n`,
      ]);
    }
    const method = pick(methods);
    const text = chance(0.7) ? body() : '';
    const hasBody = text !== '' || (method !== 'GET' && chance(0.3));
    const headers = headerLines(hasBody, Buffer.byteLength(text));
    let payload = text;
    if (headers.some((line) => line.includes('chunked'))) {
      payload = pick([
        `${text.length.toString(16)}\r\n${text}\r\n0\r\n\r\n`,
        `${text.length.toString(16)};ext=${'e'.repeat(20_000)}\r\n${text}\r\n0\r\n\r\n`,
        `zz\r\n${text}\r\n0\r\n\r\n`,
        `${(text.length + 5).toString(16)}\r\n${text}`,
      ]);
    }
    const line = `${method} ${pick(paths())} ${pick(versions)}`.trim();
    return `${chance(0.03) ? '\r\n' : ''}${line}\r\n${headers.join('\r\n')}\r\n\r\n${payload}`;
  }

  return (index: number): FuzzCase => {
    const count = chance(0.3) ? 2 + Math.floor(random() * 3) : 1;
    const requests = Array.from({ length: count }, request);
    let bytes = Buffer.from(requests.join(''), 'latin1');
    const truncated = chance(0.08);
    if (truncated) bytes = bytes.subarray(0, Math.floor(random() * bytes.length));
    if (chance(0.03)) bytes = Buffer.from(Array.from({ length: 64 }, () => Math.floor(random() * 256)));
    return {
      label: `case ${index}: ${JSON.stringify(bytes.subarray(0, 160).toString('latin1'))}`,
      bytes,
      requests: count,
      endAfterWrite: chance(0.2),
      truncated,
    };
  };
}

/** Everything wrong with what the server did in one exchange; empty when it behaved. */
function violations(fuzz: FuzzCase, result: RawExchange): string[] {
  const found: string[] = [];
  // Still open with answers missing: only a cut between two requests leaves nothing more to answer.
  const cutBetweenRequests = fuzz.truncated && result.responses.at(-1)?.headers.connection === 'keep-alive';
  if (!result.closed && result.responses.length < fuzz.requests && !cutBetweenRequests) {
    found.push('neither answered nor closed');
  }
  if (KEY_SHAPED.test(result.raw)) found.push('a key-shaped string in the response');
  for (const [n, response] of result.responses.entries()) {
    const type = response.headers['content-type'] ?? '';
    if (response.status >= 500) found.push(`response ${n}: status ${response.status}`);
    if (response.body === '') continue;
    if (response.status >= 400) {
      if (type !== 'application/problem+json; charset=utf-8')
        found.push(`response ${n}: ${response.status} as ${type}`);
      else {
        const problem = JSON.parse(response.body) as Record<string, unknown>;
        for (const field of ['code', 'detail', 'resolution', 'request_id']) {
          if (typeof problem[field] !== 'string') found.push(`response ${n}: problem without ${field}`);
        }
      }
    } else if (!type.startsWith('application/json')) {
      found.push(`response ${n}: ${response.status} as ${type}`);
    }
  }
  // The server ended the connection on its own: its last answer must have said so.
  if (result.closed && !fuzz.endAfterWrite) {
    const last = result.responses.at(-1);
    if (!last) found.push('closed without an answer');
    else if (last.headers.connection !== 'close')
      found.push(`closed after a ${last.status} without Connection: close`);
  }
  if (result.reset && !fuzz.endAfterWrite) found.push('connection reset');
  return found;
}

describeEachBackend('HTTP transport fuzz: generated raw requests over real sockets', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let port: number;
  let target: Target;

  beforeAll(async () => {
    database = await backend.create();
    // Short timeouts, so that truncated requests are answered 408 quickly.
    testApp = await startTestApp(database, { httpTimeouts: { headersMs: 300, requestMs: 600 } });
    const workspace = await createWorkspace(testApp.deps, OPERATOR, { name: 'Acme Coffee' });
    const key = await createBrandKey(testApp.deps, OPERATOR, { workspaceId: workspace.id, name: 'fuzz' });
    target = { workspaceId: workspace.id, key: key.key };
    port = await listenOnLoopback(testApp.app);
  });

  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  it(`answers ${CASES} connections of generated raw requests (seed ${SEED}) with no 5xx, only problem+json errors, Connection: close on every error that ends the connection, and no key-shaped string in any response or log line`, async () => {
    const next = generator(prng(SEED), target);
    const cases = Array.from({ length: CASES }, (_, index) => next(index));
    const failures: string[] = [];
    let answered = 0;
    // CONCURRENCY connections at a time, each taking the next case as soon as its own is done.
    const queue = cases.values();
    const worker = async () => {
      for (const fuzz of queue) {
        const result = await exchange(port, fuzz.bytes, {
          responses: fuzz.requests,
          endAfterWrite: fuzz.endAfterWrite,
          timeoutMs: 4_000,
        });
        answered += result.responses.length;
        for (const problem of violations(fuzz, result)) {
          failures.push(
            `${problem} — ${fuzz.label}\n  received: ${JSON.stringify(result.raw.slice(0, 300))}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(failures.slice(0, 20), `seed ${SEED}: ${failures.length} violations`).toEqual([]);
    expect(answered).toBeGreaterThan(CASES / 2);
    expect(testApp.logs.filter((line) => KEY_SHAPED.test(line))).toEqual([]);
  }, 60_000);
});
