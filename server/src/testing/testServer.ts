import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startServer, type RunningServer, type StartOptions } from '../server.ts';
import { createTestDatabase } from './testDatabase.ts';

export interface TestServer extends RunningServer {
  /** Environment that starts another process on the same database and shared store. */
  env: Record<string, string>;
}

/**
 * A real server on an ephemeral port: embedded PGlite by default, or a fresh database on
 * DATABASE_URL's PostgreSQL, and REDIS_URL's Redis (under a key prefix of its own) when set.
 */
export async function startTestServer(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestServer> {
  const database = await createTestDatabase();
  const merged: Record<string, string> = {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    SEED: 'demo',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: database.dataDir,
    REDIS_PREFIX: `csp-test-${randomBytes(4).toString('hex')}:`,
    ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...env,
  };
  const config = loadConfig(merged);
  const running = await startServer(config, createLogger(config.logLevel), options);
  // The app's own links (sign-in redirects) must point at the ephemeral port.
  return {
    ...running,
    env: merged,
    stop: async () => {
      await running.stop();
      await database.drop();
    },
  };
}
