import path from 'node:path';
import { availableParallelism } from 'node:os';
import { z } from 'zod';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '../..');

const optionalUrl = z
  .string()
  .optional()
  .transform((value) => value?.trim() || undefined)
  .pipe(z.url().optional());

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('0.0.0.0'),
    APP_URL: optionalUrl,
    DATABASE_URL: optionalUrl,
    DATA_DIR: z.string().default('.data'),
    REDIS_URL: optionalUrl,
    /** Prefixes every shared-store key, so several deployments (or test runs) can share one Redis. */
    REDIS_PREFIX: z.string().default('csp:'),
    SESSION_SECRET: z.string().optional(),
    ALLOWED_EMAIL_DOMAIN: z.string().trim().toLowerCase().default('example.org'),
    OIDC_ISSUER: optionalUrl,
    OIDC_CLIENT_ID: z.string().optional(),
    OIDC_CLIENT_SECRET: z.string().optional(),
    SEED: z.enum(['demo', 'none']).default('demo'),
    /** Outbound e-mail: `smtp://` or `smtps://`, credentials in the URL. */
    SMTP_URL: optionalUrl.refine((url) => url === undefined || (URL.canParse(url) && /^smtps?:$/.test(new URL(url).protocol)), 'an smtp:// or smtps:// URL'),
    MAIL_FROM: z.string().trim().optional(),
    /** At most this many messages handed to the SMTP server per minute, by all processes together. */
    MAIL_RATE_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(120),
    /** The hour (UTC) of the daily run: deadline reminders and digests. */
    MAIL_DAILY_HOUR: z.coerce.number().int().min(0).max(23).default(12),
    /** Step lock lifetime; the specification's 300 s. Shorter only to observe expiry in tests. */
    STEP_LOCK_TTL_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
    /**
     * How long a realtime connection may stay silent before the server counts it gone (a dropped
     * network, a laptop shut): its presence and locks go then. Shorter only to observe it in tests.
     */
    REALTIME_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(20),
    /**
     * How long after a change a live document is stored (Hocuspocus `debounce`; stored at least
     * every 10 s while changes keep coming). Longer only to observe the write-ahead in tests.
     */
    COLLAB_STORE_DEBOUNCE_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Server processes sharing the port: a positive integer, or `auto` for one per core. */
    WORKERS: z
      .string()
      .trim()
      .toLowerCase()
      .default('1')
      .refine((value) => value === 'auto' || /^[1-9]\d*$/.test(value), 'a positive integer, or auto (one per core)')
      .transform((value) => (value === 'auto' ? availableParallelism() : Number(value))),
  })
  .superRefine((env, ctx) => {
    // PGlite lives inside one process, and without Redis locks, presence and rate limits would too.
    const workersNeed: [missing: boolean, what: string][] = [
      [!env.DATABASE_URL, 'DATABASE_URL (the embedded PGlite serves one process)'],
      [env.PORT === 0, 'a fixed PORT (each worker listens only once ready)'],
      [!env.REDIS_URL, 'REDIS_URL (locks, presence and rate limits are shared there)'],
    ];
    for (const [missing, what] of workersNeed) {
      if (env.WORKERS > 1 && missing) ctx.addIssue({ code: 'custom', path: ['WORKERS'], message: `more than one worker needs ${what}` });
    }
    if (env.NODE_ENV !== 'production') return;
    if (!env.OIDC_ISSUER) ctx.addIssue({ code: 'custom', path: ['OIDC_ISSUER'], message: 'required in production' });
    if (!env.OIDC_CLIENT_ID) ctx.addIssue({ code: 'custom', path: ['OIDC_CLIENT_ID'], message: 'required in production' });
    if (!env.SESSION_SECRET || env.SESSION_SECRET.length < 32) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_SECRET'], message: 'at least 32 characters in production' });
    }
  });

type Env = z.infer<typeof envSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  isProduction: boolean;
  port: number;
  host: string;
  appUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  redisPrefix: string;
  sessionSecret: string;
  allowedEmailDomain: string;
  oidc: { issuer: string | undefined; clientId: string; clientSecret: string | undefined };
  seed: Env['SEED'];
  stepLockTtlMs: number;
  realtimeTimeoutMs: number;
  /** Hocuspocus `debounce` of live documents' stores. */
  collabStoreDebounceMs: number;
  logLevel: Env['LOG_LEVEL'];
  /** Server processes; above 1, a primary process forks them (cluster.ts). */
  workers: number;
  mail: MailConfig;
}

export interface MailConfig {
  /**
   * `smtp`: sent through `smtpUrl`. `mailbox`: no SMTP outside production, messages are kept for the
   * development mailbox. `held`: production without SMTP, messages wait in the queue until it is set.
   */
  transport: 'smtp' | 'mailbox' | 'held';
  smtpUrl: string | undefined;
  from: string;
  ratePerMinute: number;
  dailyHourUtc: number;
}

export class ConfigError extends Error {}

/** Reads the environment once; a bad value is a clear message, never a half-started server. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || 'env'}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  const appUrl = (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '');
  return {
    env: env.NODE_ENV,
    isProduction: env.NODE_ENV === 'production',
    port: env.PORT,
    host: env.HOST,
    appUrl,
    databaseUrl: env.DATABASE_URL,
    // A relative folder is the repository's, whichever workspace folder the process was started in.
    dataDir: env.DATA_DIR.startsWith('memory://') ? env.DATA_DIR : path.resolve(REPOSITORY_ROOT, env.DATA_DIR),
    redisUrl: env.REDIS_URL,
    redisPrefix: env.REDIS_PREFIX,
    sessionSecret: env.SESSION_SECRET ?? 'development-session-secret-not-for-production',
    allowedEmailDomain: env.ALLOWED_EMAIL_DOMAIN,
    oidc: {
      issuer: env.OIDC_ISSUER,
      clientId: env.OIDC_CLIENT_ID ?? 'csp-web',
      clientSecret: env.OIDC_CLIENT_SECRET,
    },
    seed: env.SEED,
    stepLockTtlMs: env.STEP_LOCK_TTL_SECONDS * 1000,
    realtimeTimeoutMs: env.REALTIME_TIMEOUT_SECONDS * 1000,
    collabStoreDebounceMs: env.COLLAB_STORE_DEBOUNCE_MS,
    logLevel: env.LOG_LEVEL,
    workers: env.WORKERS,
    mail: {
      transport: env.SMTP_URL ? 'smtp' : env.NODE_ENV === 'production' ? 'held' : 'mailbox',
      smtpUrl: env.SMTP_URL,
      from: env.MAIL_FROM || `"Consolidated School Plans" <no-reply@${env.ALLOWED_EMAIL_DOMAIN}>`,
      ratePerMinute: env.MAIL_RATE_PER_MINUTE,
      dailyHourUtc: env.MAIL_DAILY_HOUR,
    },
  };
}
