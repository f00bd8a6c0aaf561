import { pino, type Logger } from 'pino';

export type { Logger };

export interface LogOptions {
  /** Production always logs JSON lines, for the log collector; elsewhere a terminal gets readable lines. */
  isProduction?: boolean;
  /** Whether the log goes to a person's terminal; defaults to whether stdout is one. */
  toTerminal?: boolean;
}

/** A request reads `request GET /api/health 200 1.2 ms`; other fields follow on the same line. */
const PRETTY = {
  translateTime: 'SYS:HH:MM:ss.l',
  singleLine: true,
  messageFormat: '{msg}{if method} {method} {path} {status} {ms} ms{end}',
  ignore: 'pid,hostname,method,path,status,ms',
};

/**
 * Structured logs; request bodies and answers are never passed to it. In a terminal outside
 * production, pino's own pretty transport writes one readable, coloured line per entry; anywhere
 * else (a file, a pipe, a log collector, production) each entry is one JSON line.
 */
export function createLogger(level: string, options: LogOptions = {}): Logger {
  const pretty = level !== 'silent' && !options.isProduction && (options.toTerminal ?? process.stdout.isTTY === true);
  return pino({
    level,
    redact: { paths: ['req.headers.cookie', 'headers.cookie', '*.cookie'], censor: '[redacted]' },
    ...(pretty ? { transport: { target: 'pino-pretty', options: PRETTY } } : {}),
  });
}
