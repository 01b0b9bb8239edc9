import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * JSON logs on stdout (or `destination`). Credentials are redacted by path, and request lines carry only the
 * method, the redacted URL and the request id: headers, and so `Authorization`, are never serialized.
 * Stdout is written asynchronously: under load, lines that pile up while one write is in flight go out
 * together instead of costing a blocking write(2) each.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'brand-context' },
      timestamp: pino.stdTimeFunctions.isoTime,
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
