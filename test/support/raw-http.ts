import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 response as a raw-socket client sees it. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/** What a connection received: the final (non-1xx) responses in order, and how the connection ended. */
export interface RawExchange {
  responses: RawResponse[];
  /** The server closed the connection (FIN or reset) before the client gave up waiting. */
  closed: boolean;
  /** The connection was reset (ECONNRESET or EPIPE) instead of closed cleanly. */
  reset: boolean;
  /** Everything received, for failure messages. */
  raw: string;
}

function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** A chunked body from `offset`: its text and where it ends, or undefined until all of it has arrived. */
function parseChunked(data: Buffer, offset: number): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = [];
  let at = offset;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) throw new Error(`bad chunk size in ${data.toString('latin1')}`);
    if (size === 0) {
      const trailerEnd = data.indexOf('\r\n\r\n', lineEnd);
      if (trailerEnd !== -1) return { body: Buffer.concat(parts), end: trailerEnd + 4 };
      return data.length >= lineEnd + 4 && data.subarray(lineEnd + 2, lineEnd + 4).toString() === '\r\n'
        ? { body: Buffer.concat(parts), end: lineEnd + 4 }
        : undefined;
    }
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * The complete final responses at the start of `data` (1xx interim responses skipped). A response without
 * Content-Length or chunked encoding runs until the connection closes, so it counts only once `closed`.
 */
export function parseResponses(data: Buffer, closed = false): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  while (offset < data.length) {
    const headerEnd = data.indexOf('\r\n\r\n', offset);
    if (headerEnd === -1) break;
    const [statusLine = '', ...headerLines] = data
      .subarray(offset, headerEnd)
      .toString('latin1')
      .split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    if (!Number.isInteger(status)) throw new Error(`not an HTTP response: ${data.toString('latin1')}`);
    const headers = parseHeaders(headerLines);
    const bodyStart = headerEnd + 4;
    if (status >= 100 && status < 200) {
      offset = bodyStart;
      continue;
    }
    let body: Buffer;
    if (headers['transfer-encoding'] === 'chunked') {
      const chunked = parseChunked(data, bodyStart);
      if (!chunked) break;
      body = chunked.body;
      offset = chunked.end;
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (data.length < bodyStart + length) break;
      body = data.subarray(bodyStart, bodyStart + length);
      offset = bodyStart + length;
    } else if (status === 204 || status === 304) {
      body = Buffer.alloc(0);
      offset = bodyStart;
    } else {
      if (!closed) break;
      body = data.subarray(bodyStart);
      offset = data.length;
    }
    responses.push({ status, headers, body: body.toString('utf8') });
  }
  return responses;
}

export interface ExchangeOptions {
  /**
   * Stop waiting once this many final responses have arrived (the client then closes the connection), or, when
   * the last of them says Connection: close, once the server has closed it.
   */
  responses: number;
  /** Half-close the connection (FIN) once everything is written, as `nc -N` does. */
  endAfterWrite?: boolean;
  /** Give up waiting after this long; a server that neither answers nor closes is then reported as open. */
  timeoutMs?: number;
}

/**
 * Opens a connection to 127.0.0.1:`port`, writes `data` and collects responses until `options.responses` have
 * arrived, the server closes the connection, or `timeoutMs` passes.
 */
export function exchange(
  port: number,
  data: string | Buffer,
  options: ExchangeOptions,
): Promise<RawExchange> {
  const { responses: expected, endAfterWrite = false, timeoutMs = 5000 } = options;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let reset = false;
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({
        responses: parseResponses(received, closed),
        closed,
        reset,
        raw: received.toString('latin1'),
      });
    };
    const timer = setTimeout(() => {
      finish(false);
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const responses = parseResponses(received);
      // After Connection: close, wait for the close itself: that the server does close is part of the answer.
      if (responses.length >= expected && responses.at(-1)?.headers.connection !== 'close') finish(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      reset ||= error.code === 'ECONNRESET' || error.code === 'EPIPE';
    });
    socket.on('close', () => {
      finish(true);
    });
    socket.write(data, () => {
      if (endAfterWrite) socket.end();
    });
  });
}

/** `text` with CRLF line ends: request heads are easier to read written one line each. */
export function crlf(...lines: string[]): string {
  return lines.join('\r\n');
}

/** Collects what `socket` receives; `until` resolves once the data so far satisfies `parse`. */
export function receiver(socket: Socket) {
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
    get received(): Buffer {
      return received;
    },
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

/** Resolves once `socket` has closed, telling whether it was reset rather than closed cleanly. */
export function closedSocket(socket: Socket): Promise<{ reset: boolean }> {
  let reset = false;
  socket.on('error', (error: NodeJS.ErrnoException) => {
    reset ||= error.code === 'ECONNRESET' || error.code === 'EPIPE';
  });
  return new Promise((resolve) => {
    if (socket.closed) resolve({ reset });
    else
      socket.once('close', () => {
        resolve({ reset });
      });
  });
}
