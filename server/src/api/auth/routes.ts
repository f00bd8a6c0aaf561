import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.ts';
import type { OidcClient } from '../../auth/oidcClient.ts';
import { admitUser, recordSignIn } from '../../auth/admitUser.ts';
import { callerOf } from '../../auth/gate.ts';
import { SESSION_COOKIE, createSession, invalidateSession } from '../../auth/sessions.ts';
import { AppError, unauthenticated } from '../../errors.ts';
import { parse } from '../../http/validate.ts';
import { presentUser } from '../../presenters/user.ts';
import {
  previewBodySchema,
  previewResponseSchema,
  sessionSchema,
  signInQuerySchema,
  signInStateSchema,
  type PreviewResponse,
  type Session,
} from '@csp/shared/api/auth';
import { startRolePreview, stopRolePreview } from '../../domain/auth/rolePreview.ts';
import { can } from '../../policy/index.ts';
import { authorizeCaller } from '../../policy/authorize.ts';
import { operations, redirectAnswer } from '../../http/operation.ts';
import { errorBodySchema, successSchema } from '@csp/shared/api/common';

const SIGN_IN_COOKIE = 'csp.sign-in';
const SIGN_IN_MAX_AGE_MS = 10 * 60 * 1000;

const operation = operations('Sign-in', {
  signIn: {
    summary: 'Start signing in',
    description: 'A browser navigation: redirects to the identity provider, which returns to `/api/auth/callback`.',
    query: signInQuerySchema,
    responses: { 302: redirectAnswer('To the identity provider; to `/login?error=rate-limited` after too many attempts.') },
  },
  callback: {
    summary: 'Finish signing in',
    description: 'The identity provider redirects here: sets the session cookie and redirects to the `callbackUrl`.',
    responses: { 302: redirectAnswer('To the `callbackUrl`; to `/login?error=…` when sign-in is refused.') },
  },
  signOut: { summary: 'Sign out', responses: { 200: successSchema } },
  session: {
    summary: 'The signed-in session',
    description: 'The acting user: the previewed demo user while previewing.',
    responses: { 200: sessionSchema, 401: errorBodySchema },
  },
  startPreview: { summary: 'Preview the app as a demo user', body: previewBodySchema, responses: { 200: previewResponseSchema, 401: errorBodySchema } },
  stopPreview: { summary: 'Stop previewing', responses: { 200: previewResponseSchema, 401: errorBodySchema } },
});

export function authRoutes(services: Services, oidc: OidcClient): Router {
  const { config, rateLimits } = services;
  const secure = config.appUrl.startsWith('https://');
  const router = new Router({ prefix: '/auth' });

  // The auth limit counts POSTs per client IP.
  router.use(async (ctx, next) => {
    if (ctx.method === 'POST' || ctx.method === 'DELETE') await rateLimits.consume('auth', ctx.ip);
    return next();
  });

  const toLogin = (ctx: Context, reason: string) => ctx.redirect(`/login?error=${encodeURIComponent(reason)}`);

  // Starting a sign-in counts against the auth limit (the sign-in POST of the original flow); a
  // person who hits it lands on the login page with the reason instead of a JSON 429.
  router.get('/signin', operation.signIn, async (ctx) => {
    const { callbackUrl } = parse(signInQuerySchema, ctx.query);
    try {
      await rateLimits.consume('auth', ctx.ip);
    } catch (error) {
      if (error instanceof AppError && error.kind === 'too-many-requests') return toLogin(ctx, 'rate-limited');
      throw error;
    }
    const request = await oidc.startSignIn();
    const state = { state: request.state, nonce: request.nonce, codeVerifier: request.codeVerifier, callbackUrl };
    ctx.cookies.set(SIGN_IN_COOKIE, Buffer.from(JSON.stringify(state)).toString('base64url'), {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: '/api/auth',
      maxAge: SIGN_IN_MAX_AGE_MS,
    });
    ctx.redirect(request.url.href);
  });

  router.get('/callback', operation.callback, async (ctx) => {
    const stored = ctx.cookies.get(SIGN_IN_COOKIE, { signed: true });
    ctx.cookies.set(SIGN_IN_COOKIE, null, { path: '/api/auth', signed: true });
    const checks = stored ? signInStateSchema.safeParse(JSON.parse(Buffer.from(stored, 'base64url').toString('utf8'))) : undefined;
    if (!checks?.success) return toLogin(ctx, 'expired');
    let email: string | null;
    try {
      email = await oidc.finishSignIn(new URL(ctx.originalUrl, config.appUrl), checks.data);
    } catch (error) {
      services.logger.warn({ err: error }, 'sign-in callback refused');
      return toLogin(ctx, 'failed');
    }
    if (!email) return toLogin(ctx, 'failed');
    const admitted = await admitUser(services, email);
    if ('refused' in admitted) return toLogin(ctx, admitted.refused);
    const session = await createSession(services, admitted.user.id);
    await recordSignIn(services, admitted.user.id);
    ctx.cookies.set(SESSION_COOKIE, session.token, { httpOnly: true, sameSite: 'lax', secure, path: '/', expires: session.expiresAt });
    ctx.redirect(checks.data.callbackUrl);
  });

  router.post('/signout', operation.signOut, async (ctx) => {
    if (ctx.state.auth) {
      await invalidateSession(services, ctx.state.auth.sessionId);
      services.realtime.accessChanged({ sessionIds: [ctx.state.auth.sessionId] });
    }
    ctx.cookies.set(SESSION_COOKIE, null, { path: '/' });
    ctx.body = { success: true };
  });

  router.get('/session', operation.session, async (ctx) => {
    const auth = ctx.state.auth;
    if (!auth) throw unauthenticated();
    ctx.body = {
      user: presentUser(auth.actor),
      previewing: auth.previewing,
      ...(auth.previewing ? { signedInAs: presentUser(auth.user) } : {}),
      expires: auth.expiresAt.toISOString(),
      abilities: {
        administerDistrict: can(auth.actor, 'administerDistrict'),
        administerUsers: can(auth.actor, 'administerUsers'),
        createPlans: can(auth.actor, 'createPlans'),
        previewAs: can(auth.user, 'previewAs'),
      },
    } satisfies Session;
  });

  router.post('/preview', operation.startPreview, async (ctx) => {
    const { userId } = parse(previewBodySchema, ctx.request.body);
    const caller = callerOf(ctx);
    const target = await startRolePreview(services, authorizeCaller(caller, ['previewAs'], caller.auth.user), userId);
    ctx.body = { success: true, user: presentUser(target), previewing: true } satisfies PreviewResponse;
  });

  router.delete('/preview', operation.stopPreview, async (ctx) => {
    const caller = callerOf(ctx);
    await stopRolePreview(services, caller);
    ctx.body = { success: true, user: presentUser(caller.auth.user), previewing: false } satisfies PreviewResponse;
  });

  return router;
}
