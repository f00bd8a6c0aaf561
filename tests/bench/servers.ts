/**
 * Benchmark servers: their environment (production mode, the suite's PostgreSQL and Redis) and
 * the sessions they accept, made as the sign-in route makes them (the row stores SHA-256 of the
 * token), so that benchmarks need not go through the identity provider.
 */
import { createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { generateSessionToken, sessionIdOf, SESSION_COOKIE } from '../../server/src/auth/sessions.ts';
import { APP_WORKERS, PROFILE, REDIS_URL, RESULTS_DIR } from './config.ts';

const SESSION_SECRET = 'bench-session-secret-0123456789abcdef0123456789';

/** The environment of a benchmark server: production mode (fail-closed limits), quiet logs. */
export function serverEnv(databaseUrl: string | undefined, redisPrefix: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    // Production requires an issuer; discovery is lazy and the benchmarks sign in by session rows.
    OIDC_ISSUER: 'https://idp.bench.invalid',
    OIDC_CLIENT_ID: 'csp-web',
    OIDC_CLIENT_SECRET: 'bench',
    SESSION_SECRET,
    LOG_LEVEL: 'warn',
    ...extra,
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  if (redisPrefix !== undefined) {
    env.REDIS_URL = REDIS_URL;
    env.REDIS_PREFIX = redisPrefix;
  }
  // Several processes need both shared stores; the embedded store is one process.
  if (databaseUrl && redisPrefix !== undefined) env.WORKERS ??= APP_WORKERS;
  if (PROFILE) {
    const dir = path.join(RESULTS_DIR, 'profiles');
    mkdirSync(dir, { recursive: true });
    env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${dir}`;
  }
  return env;
}

export interface BenchSession {
  token: string;
  id: string;
  /** The Cookie header an HTTP request carries (Koa signs cookies: the value and its `.sig`). */
  cookie: string;
}

export function newSession(): BenchSession {
  const token = generateSessionToken();
  return { token, id: sessionIdOf(token), cookie: sessionCookieHeader(token) };
}

/** Koa's cookie signature (keygrip: HMAC-SHA1 of `name=value`, base64url). */
function sessionCookieHeader(token: string): string {
  const signature = createHmac('sha1', SESSION_SECRET).update(`${SESSION_COOKIE}=${token}`).digest('base64url');
  return `${SESSION_COOKIE}=${token}; ${SESSION_COOKIE}.sig=${signature}`;
}
