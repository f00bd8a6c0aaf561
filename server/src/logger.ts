import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured logs; request bodies and answers are never passed to it. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.cookie', 'headers.cookie', '*.cookie'], censor: '[redacted]' },
  });
}
