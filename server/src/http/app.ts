import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Services } from '../services.ts';
import { errorEnvelope, requestLog } from './middleware.ts';
import { notFound } from './errors.ts';
import { spaMiddleware } from './static.ts';
import { healthRoutes } from '../api/health/routes.ts';

export const JSON_BODY_LIMIT = '1mb';

/** Every resource's routes, mounted under /api. */
function apiRouter(services: Services): Router {
  const api = new Router({ prefix: '/api' });
  for (const routes of [healthRoutes(services)]) {
    api.use(routes.routes(), routes.allowedMethods({ throw: true }));
  }
  return api;
}

export interface HttpAppOptions {
  /** Middleware mounted before the API (the development identity provider). */
  before?: Middleware[];
}

export function createHttpApp(services: Services, options: HttpAppOptions = {}): Koa {
  const app = new Koa({ proxy: true });
  app.keys = [services.config.sessionSecret];
  app.silent = true;

  app.use(requestLog(services.logger));
  app.use(errorEnvelope(services.logger));
  for (const middleware of options.before ?? []) app.use(middleware);

  const body = koaBody({ json: true, urlencoded: false, text: false, multipart: false, jsonLimit: JSON_BODY_LIMIT, jsonStrict: true });
  const api = apiRouter(services);
  const apiStack = compose<Koa.ParameterizedContext>([body, api.routes(), api.allowedMethods({ throw: true })] as Middleware[]);
  app.use(async (ctx, next) => {
    if (ctx.path !== '/api' && !ctx.path.startsWith('/api/')) return next();
    await apiStack(ctx, async () => {});
    if (ctx.status === 404 && ctx.body == null) throw notFound(`No route for ${ctx.method} ${ctx.path}`);
  });

  for (const middleware of spaMiddleware()) app.use(middleware);
  return app;
}
