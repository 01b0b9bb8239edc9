import { pino, type DestinationStream, type Logger } from 'pino';
import { redactKeys } from './core/secret-keys.js';

/** Errors as pino serializes them, without Node's `rawPacket` (the raw request bytes, Authorization included). */
function serializeError(error: Error): Record<string, unknown> {
  const { rawPacket: _rawPacket, ...serialized } = pino.stdSerializers.err(error) as Record<string, unknown>;
  return serialized;
}

/**
 * JSON logs on stdout (or `destination`). Credentials are redacted by path, request lines carry only the
 * method, the URL and the request id (headers, and so `Authorization`, are never serialized), and every line
 * is masked for anything shaped like a key or a user token before it is written, whichever field holds it.
 * Stdout is written asynchronously: under load, lines that pile up while one write is in flight go out
 * together instead of costing a blocking write(2) each.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'brand-context' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: serializeError },
      hooks: { streamWrite: redactKeys },
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
