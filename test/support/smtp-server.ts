import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { Waiters } from './waiters.js';

/** One message as the relay took it: the SMTP envelope, and the message as a mail client reads it. */
export interface Received {
  /** MAIL FROM. */
  from: string;
  /** RCPT TO, as accepted. */
  to: string[];
  /** The message as it came over DATA: headers and bodies. */
  raw: string;
  mail: ParsedMail;
}

/** An SMTP error answer, as smtp-server sends it: `<code> <message>`. */
function answer(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * A relay on 127.0.0.1 (smtp-server, no TLS) that records every message it accepts. It answers 550 to the
 * addresses in `rejects`, 451 once to each address in `defersOnce`, and can hang instead of answering DATA
 * (`stall`), or answer it late or never once it has the message (`answerDelays`). It can be down (closed) and come back on the same port. With `auth`, it takes only those
 * credentials (over plain text: a test on loopback).
 */
export class SmtpRelay {
  readonly received: Received[] = [];
  readonly rejects = new Set<string>();
  readonly defersOnce = new Set<string>();
  /** Hold DATA unanswered: the sender's attempt stays in flight until it gives up. */
  stall = false;
  /**
   * How long to hold the answer to each next message's data, in ms (Infinity: no answer ever), taken in
   * order; the message is recorded as it arrives, as by a relay that has taken it but is slow to say so
   * (a content filter). Messages past the list are answered at once.
   */
  readonly answerDelays: number[] = [];
  /** How many messages came in while stalled (and were neither answered nor recorded). */
  stalled = 0;
  private server: SMTPServer | undefined;
  private readonly waiters = new Waiters('relay');

  private constructor(
    private port: number,
    private readonly auth: { user: string; pass: string } | undefined,
  ) {}

  /** Listening on a free port. */
  static async start(auth?: { user: string; pass: string }): Promise<SmtpRelay> {
    const relay = new SmtpRelay(0, auth);
    await relay.listen();
    return relay;
  }

  /** `smtp://…` for SMTP_URL, with the credentials when the relay asks for them. */
  get url(): string {
    const credentials = this.auth ? `${this.auth.user}:${this.auth.pass}@` : '';
    return `smtp://${credentials}127.0.0.1:${String(this.port)}`;
  }

  async listen(): Promise<void> {
    const { auth } = this;
    const server = new SMTPServer({
      disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      allowInsecureAuth: true,
      authOptional: !auth,
      logger: false,
      // Down means down: close drops the clients' pooled connections at once.
      closeTimeout: 1,
      onAuth: (credentials, _session, callback) => {
        if (auth && credentials.username === auth.user && credentials.password === auth.pass) {
          callback(null, { user: credentials.username });
        } else {
          callback(answer(535, 'Authentication failed'));
        }
      },
      onRcptTo: (address, _session, callback) => {
        const email = address.address.toLowerCase();
        if (this.rejects.has(email)) {
          callback(answer(550, '5.1.1 No such user'));
        } else if (this.defersOnce.delete(email)) {
          callback(answer(451, '4.3.0 Try again later'));
        } else {
          callback();
        }
      },
      onData: (stream, session, callback) => {
        void this.take(stream, session).then(
          (held) => {
            if (held === 0) callback();
            else if (Number.isFinite(held)) setTimeout(callback, held);
          },
          (error: unknown) => {
            callback(error as Error);
          },
        );
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        resolve();
      });
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  /**
   * Records the message, or holds it unanswered while stalled; returns how long to hold the answer, in ms
   * (0: answer at once, Infinity: never).
   */
  private async take(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<number> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    if (this.stall) {
      this.stalled += 1;
      this.waiters.notify();
      return Number.POSITIVE_INFINITY;
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    const { mailFrom, rcptTo } = session.envelope;
    this.received.push({
      from: mailFrom ? mailFrom.address : '',
      to: rcptTo.map((recipient) => recipient.address),
      raw,
      mail: await simpleParser(raw),
    });
    this.waiters.notify();
    return this.answerDelays.shift() ?? 0;
  }

  /** Resolves once `done` holds; fails after `timeoutMs`. */
  until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
    return this.waiters.until(done, timeoutMs, () => `${String(this.received.length)} messages arrived`);
  }

  /** Resolves once `count` messages have arrived; fails after `timeoutMs`. */
  async count(count: number, timeoutMs = 10_000): Promise<Received[]> {
    await this.until(() => this.received.length >= count, timeoutMs);
    return [...this.received];
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  }
}
