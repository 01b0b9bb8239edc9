import type { NodemailerError, SMTPPoolSentMessageInfo, Transporter } from 'nodemailer';
import { parseAddress, RESERVED_HEADER } from '../contract/email.js';
import type { EmailBody } from '../services/email-queue.js';
import type { EmailMessageRecord } from '../store/store.js';

/** README "Transactional email": how long connecting, the greeting and each wait for an answer may take. */
export const SMTP_TIMEOUT_MS = 10_000;

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

/** The relay's answer, or why there was none, without the error's own message (it may name SMTP_URL). */
function resultOf(error: NodemailerError, timeoutMs: number): SmtpResult {
  const { responseCode, response, command } = error;
  if (responseCode !== undefined && response !== undefined) {
    const refused = responseCode >= 500 && command !== undefined && RECIPIENT_COMMANDS.has(command);
    return { status: refused ? 'bounced' : 'deferred', response };
  }
  if (error.code === 'ETIMEDOUT') {
    return {
      status: 'deferred',
      response: `not sent: the relay did not answer within ${String(timeoutMs / 1000)} s`,
    };
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
  private readonly timeoutMs: number;

  /** @param options.maxConnections at most as many as the worker sends at once (`DELIVERY_WORKERS`). */
  constructor(
    private readonly smtpUrl: string,
    private readonly options: { maxConnections: number; timeoutMs?: number },
  ) {
    this.timeoutMs = options.timeoutMs ?? SMTP_TIMEOUT_MS;
  }

  private pool(): Promise<Transporter<SMTPPoolSentMessageInfo>> {
    const timeoutMs = this.timeoutMs;
    this.transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({
        url: this.smtpUrl,
        pool: true,
        maxConnections: this.options.maxConnections,
        // A connection lost mid-send is the queue's to retry, on its schedule, not the pool's at once.
        maxRequeues: 0,
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
      }),
    );
    return this.transport;
  }

  /**
   * One attempt; never throws. The headers are the message's (To and Cc as stored, never Bcc); only the
   * envelope names `recipient`. The Message-ID is the same on every attempt and for every recipient.
   */
  async send(
    message: EmailMessageRecord,
    body: EmailBody,
    recipient: string,
    signal: AbortSignal,
  ): Promise<SmtpResult> {
    const sender = envelopeSender(message.from);
    const transport = await this.pool();
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
        signal,
      });
      return { status: 'sent', response: info.response };
    } catch (error) {
      return resultOf(error as NodemailerError, this.timeoutMs);
    }
  }

  /** Closes the pool's connections. */
  close(): void {
    void this.transport?.then((transport) => {
      transport.close();
    });
  }
}
