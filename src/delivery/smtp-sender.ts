import type { NodemailerError, SMTPPoolSentMessageInfo, Transporter } from 'nodemailer';
import { parseAddress, RESERVED_HEADER } from '../contract/email.js';
import type { EmailBody } from '../services/email/queue.js';
import type { EmailMessageRecord } from '../store/store.js';

/** docs/email.md "SMTP": how long connecting and the relay's greeting may take. */
export const SMTP_TIMEOUT_MS = 10_000;
/**
 * How long each of the relay's answers may take once connected — the one to the message's data above all:
 * a relay may scan the message before it says 250, and a copy given up on then may still be delivered, then
 * sent again (RFC 5321 4.5.3.2.6 gives that answer 10 minutes). The attempt's deadline (its lease) comes
 * first.
 */
const SMTP_REPLY_TIMEOUT_MS = 10 * 60_000;

/** What the relay made of one attempt for one recipient, and its answer (or why there was none). */
export interface SmtpResult {
  /** `sent`: 250; `deferred`: 4xx, a timeout or no connection; `bounced`: 5xx to the recipient or the message. */
  status: 'sent' | 'deferred' | 'bounced';
  response: string;
}

/** The SMTP commands whose 5xx answer refuses the recipient or the message, not this service's account. */
const RECIPIENT_COMMANDS = new Set(['RCPT TO', 'DATA']);

/** The address of a `Name <address>` From header: what MAIL FROM takes (nodemailer reads it otherwise). */
function envelopeSender(from: string): string {
  const parsed = parseAddress(from);
  return typeof parsed === 'string' ? from : parsed.address;
}

/** `ms` in seconds, as the messages say them: `1.5`, `10`. */
const seconds = (ms: number) => String(Math.round(ms / 100) / 10);

/** The relay's answer, or why there was none, without the error's own message (it may name SMTP_URL). */
function resultOf(error: NodemailerError, timeouts: { connectMs: number; replyMs: number }): SmtpResult {
  const { responseCode, response, command } = error;
  if (responseCode !== undefined && response !== undefined) {
    const refused = responseCode >= 500 && command !== undefined && RECIPIENT_COMMANDS.has(command);
    return { status: refused ? 'bounced' : 'deferred', response };
  }
  if (error.code === 'ETIMEDOUT') {
    const ms = error.timeoutType === 'SOCKET_TIMEOUT' ? timeouts.replyMs : timeouts.connectMs;
    return { status: 'deferred', response: `not sent: the relay did not answer within ${seconds(ms)} s` };
  }
  return {
    status: 'deferred',
    response: `not sent: no connection to the relay (${error.originalCode ?? error.code ?? 'unknown error'})`,
  };
}

/**
 * Hands messages to the relay of `SMTP_URL`, over one pool of connections per node (`smtp://` upgrades
 * with STARTTLS when the relay offers it; `smtps://` is TLS from the start). Each attempt is one SMTP
 * transaction for one recipient, so that each recipient is sent, deferred or bounced on its own.
 */
export class SmtpSender {
  /** Made with the first message: nodemailer is loaded then, not as the service starts. */
  private transport: Promise<Transporter<SMTPPoolSentMessageInfo>> | undefined;
  private readonly timeouts: { connectMs: number; replyMs: number };

  /**
   * @param options.maxConnections at most as many as the worker sends at once (`DELIVERY_WORKERS`).
   * @param options.timeoutMs connecting and the greeting (SMTP_TIMEOUT_MS).
   * @param options.replyTimeoutMs each answer after that (SMTP_REPLY_TIMEOUT_MS).
   */
  constructor(
    private readonly smtpUrl: string,
    private readonly options: { maxConnections: number; timeoutMs?: number; replyTimeoutMs?: number },
  ) {
    this.timeouts = {
      connectMs: options.timeoutMs ?? SMTP_TIMEOUT_MS,
      replyMs: options.replyTimeoutMs ?? SMTP_REPLY_TIMEOUT_MS,
    };
  }

  /** How many copies it sends at once, at most: more wait for a connection. */
  get maxConnections(): number {
    return this.options.maxConnections;
  }

  private pool(): Promise<Transporter<SMTPPoolSentMessageInfo>> {
    const { connectMs, replyMs } = this.timeouts;
    this.transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({
        url: this.smtpUrl,
        pool: true,
        maxConnections: this.options.maxConnections,
        // A connection lost mid-send is the queue's to retry, on its schedule, not the pool's at once.
        maxRequeues: 0,
        connectionTimeout: connectMs,
        greetingTimeout: connectMs,
        socketTimeout: replyMs,
      }),
    );
    return this.transport;
  }

  /**
   * One attempt; never throws. The headers are the message's (To and Cc as stored, never Bcc); only the
   * envelope names `recipient`. The Message-ID is the same on every attempt and for every recipient, so a
   * receiver can drop a copy sent again (docs/email.md "SMTP": at least once). `signal` aborts it (the worker is
   * stopping); past `deadlineMs` from now (before its lease ends), it gives up waiting and is deferred.
   */
  async send(
    message: EmailMessageRecord,
    body: EmailBody,
    recipient: string,
    signal: AbortSignal,
    deadlineMs?: number,
  ): Promise<SmtpResult> {
    const sender = envelopeSender(message.from);
    const transport = await this.pool();
    const deadline =
      deadlineMs === undefined ? undefined : AbortSignal.timeout(Math.max(0, Math.floor(deadlineMs)));
    try {
      const info = await transport.sendMail({
        envelope: { from: sender, to: [recipient] },
        from: message.from,
        to: message.toHeader,
        cc: message.ccHeader,
        replyTo: message.replyTo,
        subject: message.subject,
        headers: { ...message.headers, [RESERVED_HEADER]: message.id },
        messageId: `<${message.id}@${sender.split('@').pop() ?? 'localhost'}>`,
        html: body.html ?? undefined,
        text: body.text ?? undefined,
        signal: deadline ? AbortSignal.any([signal, deadline]) : signal,
      });
      return { status: 'sent', response: info.response };
    } catch (error) {
      if (deadline?.aborted && !signal.aborted && deadlineMs !== undefined) {
        return {
          status: 'deferred',
          response: `not sent: the relay did not answer within ${seconds(deadlineMs)} s (the attempt's lease was running out)`,
        };
      }
      return resultOf(error as NodemailerError, this.timeouts);
    }
  }

  /** Closes the pool's connections. */
  close(): void {
    void this.transport?.then((transport) => {
      transport.close();
    });
  }
}
