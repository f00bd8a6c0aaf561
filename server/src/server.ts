import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { openStorage } from './storage/database.ts';
import { openKeyValueStore } from './kv/index.ts';
import { createHttpApp, type Identity } from './http/app.ts';
import { RateLimits } from './http/rateLimits.ts';
import { OidcClient } from './auth/oidcClient.ts';
import { devIdentityProvider } from './auth/devIdentityProvider.ts';
import { deleteExpiredSessions } from './auth/sessions.ts';
import { ensureBundledBank } from './domain/questionBank/ensureBundledBank.ts';
import { BankCatalog } from './domain/questionBank/bankCatalog.ts';
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
export async function startServer(baseConfig: Config, logger: Logger = createLogger(baseConfig.logLevel)): Promise<RunningServer> {
  // Listen first: with PORT=0 the app's own address (sign-in redirects) is known only then.
  let handler: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const httpServer = http.createServer((req, res) => handler(req, res));
  httpServer.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(baseConfig.port, baseConfig.host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  const config = baseConfig.port === 0 ? { ...baseConfig, port, appUrl: `http://127.0.0.1:${port}` } : baseConfig;

  const storage = await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const kv = openKeyValueStore(config.redisUrl, config.redisPrefix);
  const rateLimits = new RateLimits(kv, { isProduction: config.isProduction, logger });
  const services: Services = { config, logger, storage, kv, rateLimits, banks: new BankCatalog(storage.db) };

  await ensureBundledBank(storage.db);
  await deleteExpiredSessions(services);
  if (config.seed === 'demo' && (await isDatabaseEmpty(storage.db))) {
    await seedDemoDistrict(storage.db);
    logger.info('demo district loaded');
  }

  const identity = createIdentity(config);
  handler = createHttpApp(services, identity).callback();
  logger.info({ port, store: storage.kind, kv: kv.kind, issuer: identity.issuer }, 'server listening');

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

/** The configured OpenID issuer, or (outside production) the bundled development provider. */
function createIdentity(config: Config): Identity & { issuer: string } {
  const dev = config.oidc.issuer
    ? undefined
    : devIdentityProvider({ appUrl: config.appUrl, clientId: config.oidc.clientId, cookieSecret: config.sessionSecret });
  const issuer = config.oidc.issuer ?? dev!.issuer;
  const oidc = new OidcClient({
    issuer,
    clientId: config.oidc.clientId,
    clientSecret: config.oidc.clientSecret,
    redirectUri: `${config.appUrl}/api/auth/callback`,
  });
  return { oidc, issuer, ...(dev ? { devProvider: dev.middleware } : {}) };
}
