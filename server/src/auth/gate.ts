import type { Context, Middleware } from 'koa';
import type { Services } from '../services.ts';
import { forbidden, unauthenticated } from '../errors.ts';
import { SESSION_COOKIE, validateSessionToken } from './sessions.ts';
import type { Auth } from './auth.ts';
import type { Caller } from '../domain/audit/recordAudit.ts';
import { authorize, authorizeCaller, type Authorized } from '../policy/authorize.ts';

declare module 'koa' {
  interface DefaultState {
    auth?: Auth;
  }
}

/** Routes anyone may call; everything else under /api needs a live session. The API's own reference is public: it holds no data. */
export function isPublic(method: string, path: string): boolean {
  if (path.startsWith('/api/auth/')) return true;
  if ((method === 'GET' || method === 'HEAD') && ['/api/health', '/api/public/overview', '/api/openapi.json', '/api/docs'].includes(path)) return true;
  return method === 'POST' && (path === '/api/client-errors' || isUnsubscribe(path));
}

/**
 * A one-click unsubscribe (RFC 8058): mail clients POST it from outside the app, form-encoded. Its
 * signed token is its only authority (no cookie is read), so a cross-site request cannot abuse it.
 */
const isUnsubscribe = (path: string) => path.startsWith('/api/mail/unsubscribe/');

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery: a state-changing request must come from this origin (Origin or
 * Sec-Fetch-Site) and, when it has a body, be JSON. Anything else is refused with 403.
 */
export function sameOriginGuard(appUrl: string): Middleware {
  const appOrigin = new URL(appUrl).origin;
  return async (ctx, next) => {
    if (SAFE_METHODS.has(ctx.method) || (ctx.method === 'POST' && isUnsubscribe(ctx.path))) return next();
    const fetchSite = ctx.get('sec-fetch-site');
    const origin = ctx.get('origin');
    const ownOrigin = `${ctx.protocol}://${ctx.host}`;
    const originOk = origin ? origin === appOrigin || origin === ownOrigin : fetchSite === 'same-origin';
    const fetchSiteOk = !fetchSite || fetchSite === 'same-origin';
    if (!originOk || !fetchSiteOk) throw forbidden('Cross-site request refused');
    const hasBody = Boolean(ctx.request.length || ctx.get('transfer-encoding'));
    if (hasBody && !ctx.is('application/json')) throw forbidden('State-changing requests must be JSON');
    return next();
  };
}

/** An open editor's own traffic: its autosaves and presence heartbeats, besides every read. */
const EDITOR_WRITE = /^\/api\/forms\/[^/]+\/(step\/[^/]+|editors\/register)$/;

/**
 * Whether a request may use a session validated seconds ago. Other writes read it fresh (the
 * administration of users, plans and the district acts on the caller's level as it is now), and so
 * does asking who is signed in.
 */
const mayUseCachedSession = (method: string, path: string) =>
  path !== '/api/auth/session' && (SAFE_METHODS.has(method) || ((method === 'PUT' || method === 'POST') && EDITOR_WRITE.test(path)));

/** The access gate: resolves the session cookie, and answers 401 before any private handler runs. */
export function accessGate(services: Services): Middleware {
  return async (ctx, next) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    if (token) {
      const auth = await validateSessionToken(services, token, { fresh: !mayUseCachedSession(ctx.method, ctx.path) });
      if (auth) ctx.state.auth = auth;
    }
    if (!ctx.state.auth && !isPublic(ctx.method, ctx.path)) throw unauthenticated();
    return next();
  };
}

/** The caller's session; private routes only run behind the gate, so it is always there. */
export function authOf(ctx: Context): Auth {
  const auth = ctx.state.auth;
  if (!auth) throw unauthenticated();
  return auth;
}

/** Who is asking, for writes that are audited: the session and the client's address. */
export const callerOf = (ctx: Context): Caller => ({ auth: authOf(ctx), ip: ctx.ip });

/** The caller of a district route (behind `superAdminOnly`), as the district's domain functions require it. */
export const districtCallerOf = (ctx: Context): Authorized<Caller, 'administerDistrict'> => authorizeCaller(callerOf(ctx), ['administerDistrict']);

/** Route guard for the district's own routes, declared once on each: Super Admins only. */
export const superAdminOnly: Middleware = async (ctx, next) => {
  authorize(authOf(ctx).actor, 'administerDistrict');
  return next();
};
