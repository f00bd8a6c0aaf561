import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { openStorage, type Storage } from './storage/database.ts';
import { openKeyValueStore, type KeyValueStore } from './kv/index.ts';
import { createHttpApp, type Identity } from './http/app.ts';
import { applySecurityHeaders, pathOf, refuseUpgrade, securityHeaders } from './http/securityHeaders.ts';
import { shellScriptHashes } from './http/static.ts';
import { RateLimits } from './http/rateLimits.ts';
import { OidcClient } from './auth/oidcClient.ts';
import { devIdentityProvider } from './auth/devIdentityProvider.ts';
import { deleteExpiredSessions } from './auth/sessions.ts';
import { SessionCache } from './auth/sessionCache.ts';
import { RecentPlanSteps } from './domain/plans/recentPlanSteps.ts';
import { ensureBundledBank } from './domain/questionBank/ensureBundledBank.ts';
import { BankCatalog } from './domain/questionBank/bankCatalog.ts';
import { seedDemoDistrict, isDatabaseEmpty } from './seed/demoDistrict.ts';
import { createRealtimeGateway, REALTIME_PATH, type RealtimeGateway } from './realtime/gateway.ts';
import { createCollabServer, COLLAB_PATH } from './collab/collabServer.ts';
import { EventDispatcher } from './events/dispatcher.ts';
import { realtimeFanOut } from './realtime/fanOut.ts';
import { accessRevalidation } from './realtime/accessRevalidation.ts';
import { liveDocumentUpdates } from './collab/liveDocumentUpdates.ts';
import { isAllowedOrigin } from './auth/socketHandshake.ts';
import type { BaseServices, Services } from './services.ts';
import { MailSender, type MailSenderOptions } from './mail/mailSender.ts';
import { planNotifications } from './domain/notifications/planNotifications.ts';
import { mailOutbox } from './domain/mail/mailOutbox.ts';
import { planVersionsOnDecisions } from './domain/history/planVersions.ts';
import { answerHistory, recordAnswerRevisions } from './domain/history/answerRevisions.ts';
import { HistoryQueue } from './domain/history/historyQueue.ts';

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  /** The Socket.IO gateway (its periodic work can be run at once). */
  realtime: RealtimeGateway;
  /** This process's mail sender (a turn can be run at once). */
  mail: MailSender;
  /** Answer history waiting to be written (written after the saves: `drain` waits for it). */
  history: Pick<HistoryQueue, 'drain'>;
  httpServer: http.Server;
  stop(): Promise<void>;
}

type UpgradeListener = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** How long a start waits for Redis to connect before serving without it (it keeps retrying). */
const REDIS_START_WAIT_MS = 5_000;

/**
 * A request Node's parser refuses gets an answer before the socket closes: 431 for headers over the
 * size limit (a huge Cookie), 408 for a timeout, 400 for anything else unparsable.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || (error.code === 'ECONNRESET' && !socket.readable)) return void socket.destroy();
  const [status, reason] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout']
        : [400, 'Bad Request'];
  const body = JSON.stringify({ error: reason });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Once per start of the service, after the migrations: the bundled question bank stored, expired
 * sessions deleted, and the demo district loaded into an empty database when SEED=demo.
 */
export async function prepareStorage(storage: Storage, config: Config, logger: Logger): Promise<void> {
  await ensureBundledBank(storage.db);
  await deleteExpiredSessions({ storage });
  if (config.seed === 'demo' && (await isDatabaseEmpty(storage.db))) {
    await seedDemoDistrict(storage.db);
    logger.info('demo district loaded');
  }
}

export interface StartOptions {
  /**
   * One of the workers of a primary process (cluster.ts): the primary has migrated and prepared
   * the database, and the worker listens only once ready, since from then on the primary hands it
   * its share of new connections (no 503 while it starts, also when it replaces a dead worker).
   */
  worker?: boolean;
  mail?: MailSenderOptions;
}

/**
 * Wires storage, the shared store, the HTTP app, the realtime gateway (/realtime) and the
 * collaboration server (/collab) on one HTTP server; `stop` drains and closes them in order.
 */
export async function startServer(
  baseConfig: Config,
  logger: Logger = createLogger(baseConfig.logLevel, { isProduction: baseConfig.isProduction }),
  options: StartOptions = {},
): Promise<RunningServer> {
  let handler: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const httpServer = http.createServer((req, res) => handler(req, res));
  httpServer.on('clientError', answerClientError);
  // Longer than the idle timeouts of load balancers and HTTP clients, so the server never closes a
  // keep-alive connection at the moment a client reuses it (the client would see a reset).
  httpServer.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  httpServer.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  const listen = () =>
    new Promise<number>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(baseConfig.port, baseConfig.host, () => resolve((httpServer.address() as AddressInfo).port));
    });
  // Alone, it listens first (answering 503 until ready): with PORT=0 the app's own address (sign-in
  // redirects) is known only then. A worker has a fixed port (config.ts) and listens last.
  const port = options.worker ? baseConfig.port : await listen();
  const config = baseConfig.port === 0 ? { ...baseConfig, port, appUrl: `http://127.0.0.1:${port}` } : baseConfig;

  const storage = await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, migrate: !options.worker });
  if (!options.worker) await prepareStorage(storage, config, logger);
  const kv = openKeyValueStore(config.redisUrl, config.redisPrefix);
  const events = new EventDispatcher(storage.db, logger);
  const base: BaseServices = {
    config,
    logger,
    storage,
    kv,
    rateLimits: new RateLimits(kv, { isProduction: config.isProduction, logger }),
    banks: new BankCatalog(storage.db, kv),
    // Only where every process hears of revoked sessions: through Redis, or alone on its embedded database.
    sessionCache: new SessionCache(kv.kind === 'redis' || storage.kind === 'pglite'),
    recentPlanSteps: new RecentPlanSteps(),
    events,
  };

  const gateway = createRealtimeGateway(httpServer, base);
  const collab = createCollabServer(base);
  gateway.onAccessChanged((scope) => collab.revalidate(scope));
  // In the change's transaction: the notifications it gives people, and their e-mail in the outbox.
  events.subscribe(planNotifications(base.banks));
  events.subscribe(mailOutbox);
  // A version of the plan at each decision, in the decision's transaction.
  events.subscribe(planVersionsOnDecisions);
  // After a commit: connected clients hear of it, live documents take written answers, and open
  // connections whose access it may change are checked again.
  events.subscribe(realtimeFanOut(gateway));
  events.subscribe(liveDocumentUpdates(collab));
  events.subscribe(accessRevalidation((scope) => gateway.accessChanged(scope)));
  // Every committed step write joins its answers' history (queued: history waits, never the saves).
  const history = new HistoryQueue((write) => recordAnswerRevisions(storage.db, write), logger);
  events.subscribe(answerHistory(history));
  const services: Services = {
    ...base,
    realtime: gateway,
    liveDocuments: collab,
    liveEditing: collab,
    liveServers: { realtime: () => gateway.status(), collaboration: () => collab.status() },
  };

  // Every answer carries the security headers, Socket.IO's own included; upgrades are dispatched
  // here: /collab to Hocuspocus, /realtime to Socket.IO, anything else refused with a real answer.
  const headers = securityHeaders({ appUrl: config.appUrl, scriptHashes: shellScriptHashes(), socketPaths: [COLLAB_PATH, `${REALTIME_PATH}/`] });
  applySecurityHeaders(httpServer, headers);
  const realtimeUpgrade = httpServer.listeners('upgrade') as UpgradeListener[];
  httpServer.removeAllListeners('upgrade');
  httpServer.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', (error) => logger.debug({ err: error }, 'upgrade socket error'));
    const path = pathOf(request);
    const collabPath = path === COLLAB_PATH || path.startsWith(`${COLLAB_PATH}/`);
    const realtimePath = path === REALTIME_PATH || path.startsWith(`${REALTIME_PATH}/`);
    if (!collabPath && !realtimePath) return refuseUpgrade(request, socket, headers, 404, `No WebSocket at ${path}`);
    if (!isAllowedOrigin(request, config.appUrl)) return refuseUpgrade(request, socket, headers, 403, 'Cross-site WebSocket refused');
    if (collabPath) collab.handleUpgrade(request, socket, head);
    else for (const listener of realtimeUpgrade) listener.call(httpServer, request, socket, head);
  });

  const identity = createIdentity(config, kv);
  // Commands fail fast rather than queue while Redis is not connected, so the first requests wait
  // for the connection; a Redis that is down at start is not waited for past a few seconds.
  if (!(await kv.whenConnected(REDIS_START_WAIT_MS))) logger.warn('Redis not reachable at start; serving without it until it is');
  handler = createHttpApp(services, identity).callback();
  const mail = new MailSender(storage, config, logger, options.mail);
  mail.start();
  if (options.worker) await listen();
  logger.info({ port, store: storage.kind, kv: kv.kind, issuer: identity.issuer }, 'server listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      await mail.stop();
      await collab.close();
      await gateway.close();
      await closed;
      // The last saves' history, before the database closes.
      await history.drain();
      await kv.close();
      await storage.close();
    })());

  return { url: `http://127.0.0.1:${port}`, port, services, realtime: gateway, mail, history, httpServer, stop };
}

/** The configured OpenID issuer, or (outside production) the bundled development provider. */
function createIdentity(config: Config, kv: KeyValueStore): Identity & { issuer: string } {
  const dev = config.oidc.issuer
    ? undefined
    : devIdentityProvider({ appUrl: config.appUrl, clientId: config.oidc.clientId, cookieSecret: config.sessionSecret, kv });
  const issuer = config.oidc.issuer ?? dev!.issuer;
  const oidc = new OidcClient({
    issuer,
    clientId: config.oidc.clientId,
    clientSecret: config.oidc.clientSecret,
    redirectUri: `${config.appUrl}/api/auth/callback`,
  });
  return { oidc, issuer, ...(dev ? { devProvider: dev.middleware } : {}) };
}
