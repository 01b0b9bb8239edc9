import { IncomingMessage } from 'node:http';

/** What a capture ends with: the whole body, or the error that cut it short. */
export type CapturedBody = Buffer | Error;

/**
 * The server's request class: its body can be taken as Node's HTTP parser delivers it (the parser `push`es
 * each piece, then `null`), without switching the stream to flowing mode. Reading a small body through
 * 'data' and 'end' costs listeners, ticks and events on every request: on the read operation, about 5 % of the
 * server's CPU (docs/performance.md "Performance").
 *
 * A capture is begun before the body arrives (`captureBody`, in the 'request' event), and ends one of two
 * ways: `takeBody` receives the body (the stream then ends, read), or `releaseBody` puts back into the stream
 * what was captured, for another reader (the router) to read as if nothing had happened.
 */
export class CapturingRequest extends IncomingMessage {
  /** The pieces captured so far; undefined while no capture runs. */
  private chunks: Buffer[] | undefined;
  /** Set once the body is whole or cut short, until it is taken or released. */
  private captured: CapturedBody | undefined;
  private taker: ((body: CapturedBody) => void) | undefined;

  /** Begins capturing the body: its pieces stay here, not in the stream, until taken or released. */
  captureBody(): void {
    this.chunks = [];
  }

  /** Calls `then` with the body once it is whole (now, if it is), or with the error that cut it short. */
  takeBody(then: (body: CapturedBody) => void): void {
    if (this.captured === undefined) {
      this.taker = then;
      return;
    }
    then(this.finish());
  }

  /** Ends the capture: what it holds goes back into the stream, and the stream reads on from there. */
  releaseBody(): void {
    const { chunks, captured } = this;
    if (chunks === undefined) return;
    this.stopCapturing();
    for (const chunk of chunks) super.push(chunk);
    if (captured instanceof Buffer) super.push(null);
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    const { chunks } = this;
    if (chunks === undefined) return super.push(chunk, encoding);
    if (chunk !== null) {
      // The parser hands Buffers; a capture only begins on bodies of a few KB (no back-pressure needed).
      chunks.push(chunk as Buffer);
      return true;
    }
    const [only] = chunks;
    this.settle(chunks.length === 1 && only ? only : Buffer.concat(chunks));
    return false;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Destroyed first (aborted set, the socket closed), then told: the taker meets the request as it now is.
    super._destroy(error, callback);
    if (this.chunks !== undefined && this.captured === undefined)
      this.settle(error ?? new Error('the request was destroyed before its body ended'));
  }

  private settle(body: CapturedBody): void {
    this.captured = body;
    const { taker } = this;
    if (taker !== undefined) taker(this.finish());
  }

  /** The body, handed to its taker: the capture is over, and the stream ends as one that was read. */
  private finish(): CapturedBody {
    const body = this.captured as CapturedBody;
    this.stopCapturing();
    if (body instanceof Buffer) super.push(null);
    return body;
  }

  private stopCapturing(): void {
    this.chunks = undefined;
    this.captured = undefined;
    this.taker = undefined;
  }
}
