import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1 that records every request and answers with the status `respond` picks
 * (200 unless told otherwise).
 */
export class RecordingReceiver {
  readonly received: ReceivedRequest[] = [];
  respond: (request: ReceivedRequest, index: number) => number = () => 200;
  private readonly server: Server;

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(port = 0): Promise<RecordingReceiver> {
    const server: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
        const index = receiver.received.push(received) - 1;
        response.statusCode = receiver.respond(received, index);
        response.end('ok');
      });
    });
    const receiver = new RecordingReceiver(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${String((this.server.address() as AddressInfo).port)}/hooks`;
  }

  /** Resolves once `count` requests have arrived, or rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) {
        throw new Error(`expected ${String(count)} requests, received ${String(this.received.length)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.received;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }
}
