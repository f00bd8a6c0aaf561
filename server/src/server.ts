import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { openStorage } from './storage/database.ts';
import { openKeyValueStore } from './kv/index.ts';
import { createHttpApp } from './http/app.ts';
import { ensureBundledBank } from './domain/questionBank/ensureBundledBank.ts';
import { seedDemoDistrict, isDatabaseEmpty } from './seed/demoDistrict.ts';
import type { Services } from './services.ts';

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  httpServer: http.Server;
  stop(): Promise<void>;
}

/** Wires storage, the shared store and the HTTP app on one server; `stop` drains and closes them. */
export async function startServer(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<RunningServer> {
  const storage = await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const kv = openKeyValueStore(config.redisUrl, config.redisPrefix);
  const services: Services = { config, logger, storage, kv };

  await ensureBundledBank(storage.db);
  if (config.seed === 'demo' && (await isDatabaseEmpty(storage.db))) {
    await seedDemoDistrict(storage.db);
    logger.info('demo district loaded');
  }

  const app = createHttpApp(services);
  const httpServer = http.createServer(app.callback());
  httpServer.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  logger.info({ port, store: storage.kind, kv: kv.kind }, 'server listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeIdleConnections();
      });
      await kv.close();
      await storage.close();
    })());

  return { url: `http://127.0.0.1:${port}`, port, services, httpServer, stop };
}
