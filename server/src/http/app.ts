import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import compress from 'koa-compress';
import conditionalGet from 'koa-conditional-get';
import etag from '@koa/etag';
import Router from '@koa/router';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { Services } from '../services.ts';
import type { OidcClient } from '../auth/oidcClient.ts';
import { accessGate, sameOriginGuard } from '../auth/gate.ts';
import { DEV_IDP_PATH } from '../auth/devIdentityProvider.ts';
import { errorEnvelope, requestLog } from './middleware.ts';
import { AppError, invalidInput, notFound } from '../errors.ts';
import { assertShallow } from './validate.ts';
import { spaMiddleware } from './static.ts';
import { healthRoutes } from '../api/health/routes.ts';
import { authRoutes } from '../api/auth/routes.ts';
import { usersRoutes } from '../api/users/routes.ts';
import { questionBankRoutes } from '../api/questionBank/routes.ts';
import { formsRoutes } from '../api/forms/routes.ts';
import { stepsRoutes } from '../api/steps/routes.ts';
import { commentsRoutes } from '../api/comments/routes.ts';
import { historyRoutes } from '../api/history/routes.ts';
import { notificationsRoutes } from '../api/notifications/routes.ts';
import { adminRoutes } from '../api/admin/routes.ts';
import { schoolYearRoutes } from '../api/schoolYears/routes.ts';
import { publicRoutes } from '../api/public/routes.ts';
import { reportsRoutes } from '../api/reports/routes.ts';
import { questionBankAdminRoutes } from '../api/questionBankAdmin/routes.ts';
import { exportRoutes } from '../api/exports/routes.ts';
import { auditRoutes } from '../api/audit/routes.ts';
import { openapiRoutes } from '../api/openapi/routes.ts';
import { mailRoutes } from '../api/mail/routes.ts';

const JSON_BODY_LIMIT = '1mb';
/** Answers smaller than this go out as they are: compressing them saves less than it costs. */
const COMPRESS_THRESHOLD = '1kb';

export interface Identity {
  oidc: OidcClient;
  /** The bundled development provider, mounted at /dev-idp when there is no real issuer. */
  devProvider?: Middleware;
}

/**
 * Every resource's routes, mounted under /api. What `before` holds runs first on every request that
 * names an existing route (path and method), and on no other: the router matches once.
 */
export function apiRouter(services: Services, identity: Identity, before: Middleware[] = []): Router {
  const api = new Router({ prefix: '/api' });
  if (before.length > 0) api.use(...before);
  const resources = [
    healthRoutes(services),
    authRoutes(services, identity.oidc),
    usersRoutes(services),
    questionBankRoutes(services),
    formsRoutes(services),
    stepsRoutes(services),
    commentsRoutes(services),
    historyRoutes(services),
    notificationsRoutes(services),
    adminRoutes(services),
    schoolYearRoutes(services),
    publicRoutes(services),
    reportsRoutes(services),
    questionBankAdminRoutes(services),
    exportRoutes(services),
    auditRoutes(services),
    mailRoutes(services),
    openapiRoutes(api),
  ];
  for (const routes of resources) api.use(routes.routes());
  return api;
}

export function createHttpApp(services: Services, identity: Identity): Koa {
  // Behind one load balancer: the client address is the entry it appended to X-Forwarded-For,
  // not the leftmost one, which the client chooses.
  const app = new Koa({ proxy: true, maxIpsCount: 1 });
  app.keys = [services.config.sessionSecret];
  app.silent = true;

  app.use(requestLog(services.logger));
  // JSON, CSV and the server's own pages compressed on the fly as the client accepts (a static file's
  // build-time copy is already encoded, so left alone). The WebSocket paths never pass through Koa.
  app.use(compress({ threshold: COMPRESS_THRESHOLD }));
  // A GET whose validator (Last-Modified or ETag) still holds is answered 304 with no body; every
  // read's answer gets an ETag (a file's from its size and time, JSON from its bytes). Writes get
  // none: nothing revalidates them, and an autosave need not hash its answer.
  app.use(conditionalGet());
  const readEtag = etag();
  app.use((ctx, next) => (ctx.method === 'GET' || ctx.method === 'HEAD' ? readEtag(ctx, next) : next()));
  app.use(errorEnvelope(services.logger));

  if (identity.devProvider) {
    const devProvider = identity.devProvider;
    app.use(async (ctx, next) => {
      if (!ctx.path.startsWith(DEV_IDP_PATH)) return next();
      // The auth limit counts people's sign-in POSTs per client, not this server's own token requests.
      if (ctx.method === 'POST' && ctx.path.startsWith(`${DEV_IDP_PATH}/interaction/`)) await services.rateLimits.consume('auth', ctx.ip);
      return devProvider(ctx, next);
    });
  }

  // DELETE carries a JSON body on some routes (unshare, delete user), so it is parsed too.
  const body = koaBody({
    json: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonLimit: JSON_BODY_LIMIT,
    jsonStrict: true,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  });
  // The access gate guards the routes that exist (an unknown path or method falls through to 404/405)
  // and decides before any body is read: an anonymous request to a protected route is a 401 whatever
  // it carries.
  const api = apiRouter(services, identity, [accessGate(services), readBody(body)]);
  const apiStack = compose<Koa.ParameterizedContext>([sameOriginGuard(services.config.appUrl), api.routes(), api.allowedMethods()] as Middleware[]);
  app.use(async (ctx, next) => {
    if (ctx.path !== '/api' && !ctx.path.startsWith('/api/')) return next();
    await apiStack(ctx, async () => {});
    // The API's reads are private and asked again each time; their ETag makes an unchanged one a
    // 304 with no body (a reload of a step editor no longer downloads the question bank again).
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.status === 200 && !ctx.response.get('Cache-Control'))
      ctx.set('Cache-Control', 'private, no-cache');
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body == null) {
      // A method no route of this path takes (also one no route takes at all, such as PROPFIND): 405 with Allow.
      if (!ctx.response.get('Allow')) throw notFound(`No route for ${ctx.method} ${ctx.path}`);
      // An HTTP matter, not a domain one: answered here rather than thrown.
      ctx.status = 405;
      ctx.body = { error: 'Method Not Allowed' };
      return;
    }
    if (ctx.status === 404 && ctx.body == null) throw notFound(`No route for ${ctx.method} ${ctx.path}`);
  });

  for (const middleware of spaMiddleware()) app.use(middleware);
  return app;
}

/**
 * Reads the JSON body. A body that cannot be read (a Content-Encoding it does not have, a broken
 * stream) is the client's fault: 400, not 500. Bodies nested deeper than any payload of this API
 * are refused before anything walks them.
 */
function readBody(body: Middleware): Middleware {
  return async (ctx, next) => {
    let read = false;
    try {
      await body(ctx, async () => {
        read = true;
        assertShallow(ctx.request.body);
        await next();
      });
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (read || error instanceof AppError || (status !== undefined && status >= 400 && status < 500)) throw error;
      throw invalidInput('The request body could not be read (check its Content-Encoding)');
    }
  };
}
