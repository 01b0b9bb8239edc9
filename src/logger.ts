import { pino, type DestinationStream, type Logger } from 'pino';
import { BRAND_KEY_PATTERN } from './core/brand-key.js';

/** Replaces anything shaped like a brand read key (say, in a mistaken query string) before it is logged. */
export function redactSecrets(text: string): string {
  return text.replace(BRAND_KEY_PATTERN, 'brk_[REDACTED]');
}

/**
 * JSON logs on stdout (or `destination`). Credentials are redacted by path, and request lines carry only
 * the method, the redacted URL and the request id: headers, and so `Authorization`, are never serialized.
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
    destination,
  );
}
