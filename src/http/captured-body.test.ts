import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crlf, exchange } from '#test/support/raw-http.js';
import { type CapturedBody, CapturingRequest } from './captured-body.js';

const post = (body: string, declared = Buffer.byteLength(body)) =>
  crlf('POST / HTTP/1.1', 'host: localhost', `content-length: ${declared}`, '', body);

describe('CapturingRequest', () => {
  let handle: (request: CapturingRequest, response: ServerResponse) => void = () => undefined;
  const server = createServer({ IncomingMessage: CapturingRequest }, (request, response) => {
    handle(request, response);
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Answers with what `take` makes of the captured body, taken a turn of the event loop after the request. */
  function answerTaken(describeBody: (body: CapturedBody) => string) {
    handle = (request, response) => {
      request.captureBody();
      setImmediate(() => {
        request.takeBody((body) => response.end(describeBody(body)));
      });
    };
  }

  it('gives the whole body to its taker, and the connection serves the next request', async () => {
    answerTaken((body) => `took ${body.toString()}`);
    const { responses } = await exchange(port, post('{"a":1}') + post('{"b":22}'), { responses: 2 });
    expect(responses.map((response) => response.body)).toEqual(['took {"a":1}', 'took {"b":22}']);
  });

  it('waits for a body that arrives in pieces, and gives it whole', async () => {
    answerTaken((body) => `took ${body.toString()}`);
    const socket = connect(port, '127.0.0.1');
    const received = new Promise<string>((resolve) => {
      socket.on('data', (data) => {
        resolve(data.toString());
      });
    });
    socket.write(post('{"in":', 15));
    setTimeout(() => socket.write('"pieces"}'), 50);
    expect(await received).toMatch(/\r\n\r\ntook \{"in":"pieces"\}$/);
    socket.destroy();
  });

  it('puts back what it captured when released, for the stream to yield as if nothing had happened', async () => {
    handle = (request, response) => {
      request.captureBody();
      setImmediate(() => {
        request.releaseBody();
        void text(request).then((body) => response.end(`streamed ${body}`));
      });
    };
    const { responses } = await exchange(port, post('{"kept":true}'), { responses: 1 });
    expect(responses[0]?.body).toBe('streamed {"kept":true}');
  });

  it('released before any piece arrived, leaves the whole body to the stream', async () => {
    handle = (request, response) => {
      request.captureBody();
      request.releaseBody();
      void text(request).then((body) => response.end(`streamed ${body}`));
    };
    const { responses } = await exchange(port, post('{"early":1}'), { responses: 1 });
    expect(responses[0]?.body).toBe('streamed {"early":1}');
  });

  it('gives its taker the error when the client goes away before the body ends', async () => {
    const taken = new Promise<CapturedBody>((resolve) => {
      handle = (request) => {
        request.captureBody();
        request.takeBody(resolve);
      };
    });
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(post('{"cut":', 100));
      setTimeout(() => socket.destroy(), 50);
    });
    expect(await taken).toBeInstanceOf(Error);
  });

  it('leaves a request it was not asked to capture to the stream', async () => {
    handle = (request, response) => {
      void text(request).then((body) => response.end(`streamed ${body}`));
    };
    const { responses } = await exchange(port, post('{"plain":1}'), { responses: 1 });
    expect(responses[0]?.body).toBe('streamed {"plain":1}');
  });
});
