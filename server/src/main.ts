import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startServer } from './server.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

const logger = createLogger(config.logLevel);
// A rejection nobody handled is a bug to fix where it starts, but one request or event must not
// end the process for everyone: it is logged loudly and the process goes on. A thrown exception
// may have left state half-changed, so that still ends the process (after logging).
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'BUG: unhandled promise rejection (process kept running)'));
process.on('uncaughtException', (error, origin) => {
  logger.fatal({ err: error, origin }, 'uncaught exception; exiting');
  process.exit(1);
});
const running = await startServer(config, logger).catch((error: unknown) => {
  logger.fatal({ err: error }, 'server failed to start');
  process.exit(1);
});

let shuttingDown = false;
async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ signal }, 'shutting down');
  const forced = setTimeout(() => process.exit(1), 10_000);
  forced.unref();
  await running.stop();
  logger.info('stopped cleanly');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
