import type { FastifyBaseLogger } from 'fastify';
import { type Bindings, type ChildLoggerOptions, pino, type DestinationStream, type Logger } from 'pino';
import { redactKeys } from './core/secret-keys.js';

/** Errors as pino serializes them, without Node's `rawPacket` (the raw request bytes, Authorization included). */
function serializeError(error: Error): Record<string, unknown> {
  const { rawPacket: _rawPacket, ...serialized } = pino.stdSerializers.err(error) as Record<string, unknown>;
  return serialized;
}

/**
 * Masks `secrets` (as written, and percent-encoded as a URL carries them), then anything key-shaped: secrets of
 * the configuration, such as METRICS_TOKEN, have no shape to recognise.
 */
function redactLine(secrets: readonly string[]): (line: string) => string {
  const forms = [
    ...new Set(secrets.filter((secret) => secret !== '').flatMap((s) => [s, encodeURIComponent(s)])),
  ].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return redactKeys;
  const escaped = forms.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const anySecret = new RegExp(escaped.join('|'), 'g');
  return (line) => redactKeys(line.replace(anySecret, '[REDACTED]'));
}

/**
 * JSON logs on stdout (or `destination`). Credentials are redacted by path, request lines carry only the
 * method, the URL and the request id (headers, and so `Authorization`, are never serialized), and every line
 * is masked for anything shaped like a key or a user token, and for each of `secrets`, before it is written,
 * whichever field holds it. Stdout is written asynchronously: under load, lines that pile up while one write is
 * in flight go out together instead of costing a blocking write(2) each.
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  secrets: readonly (string | undefined)[] = [],
): Logger {
  const known = secrets.filter((secret): secret is string => secret !== undefined);
  return pino(
    {
      level,
      base: { service: 'brand-context' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: serializeError },
      hooks: { streamWrite: redactLine(known) },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          'password',
          'key',
          '*.password',
          '*.key',
        ],
        censor: '[REDACTED]',
      },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger, made only when the request writes a line. Fastify gives every request a child logger
 * (its request id bound), which costs a pino child per request; most requests of the read operation write
 * no line at all (successes are logged at debug, src/http/app.ts), so the child is made on first use.
 */
class LazyChildLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  private write(level: LevelName, args: unknown[]): void {
    this.logger[level](...(args as Parameters<FastifyBaseLogger[LevelName]>));
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {
    // Nothing to write.
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger, made on its first line (LazyChildLogger). */
export function lazyChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}
