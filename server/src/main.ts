import cluster from 'node:cluster';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startServer } from './server.ts';
import { startWorkers } from './cluster.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

const logger = createLogger(config.logLevel, { isProduction: config.isProduction });
// A rejection nobody handled is a bug to fix where it starts, but one request or event must not
// end the process for everyone: it is logged loudly and the process goes on. A thrown exception
// may have left state half-changed, so that still ends the process (after logging).
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'BUG: unhandled promise rejection (process kept running)'));
process.on('uncaughtException', (error, origin) => {
  logger.fatal({ err: error, origin }, 'uncaught exception; exiting');
  process.exit(1);
});

// WORKERS > 1: this primary process only prepares the database and supervises the workers it forks.
const isPrimary = config.workers > 1 && cluster.isPrimary;
const starting = (isPrimary ? startWorkers(config, logger) : startServer(config, logger, { worker: cluster.isWorker })).catch((error: unknown) => {
  logger.fatal({ err: error }, 'server failed to start');
  process.exit(1);
});

let shuttingDown = false;
async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ signal }, 'shutting down');
  // A server forces its exit after 10 s; the primary gives its workers the time to do the same.
  const forced = setTimeout(() => process.exit(1), isPrimary ? 20_000 : 10_000);
  forced.unref();
  try {
    await (await starting).stop();
  } catch (error) {
    logger.error({ err: error }, 'did not stop cleanly');
    process.exit(1);
  }
  logger.info('stopped cleanly');
  process.exit(0);
}
// Registered before the start finishes: a signal meanwhile stops the server once it is up.
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
// A worker whose primary is gone stops too, rather than serve on unsupervised.
if (cluster.isWorker) process.once('disconnect', () => void shutdown('primary gone'));
