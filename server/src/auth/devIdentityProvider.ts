import type { Middleware } from 'koa';
import mount from 'koa-mount';
import compose from 'koa-compose';
import { koaBody } from 'koa-body';
import Provider from 'oidc-provider';
import type { KeyValueStore } from '../kv/store.ts';
import { DevIdentityStore, devSigningKey } from './devIdentityStore.ts';

export const DEV_IDP_PATH = '/dev-idp';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function loginPage(uid: string, clientId: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Development sign-in</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#1b2a41}
label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;font-size:1rem}
button{margin-top:1rem;padding:.5rem 1rem;font-size:1rem;background:#1b2a41;color:#fff;border:0;border-radius:4px}</style>
</head><body><main>
<h1>Development sign-in</h1>
<p>This local identity provider stands in for the district's. Enter the e-mail of a user to sign in as (for example <code>principal.harbor@example.org</code>).</p>
<form method="post" action="${DEV_IDP_PATH}/interaction/${escapeHtml(uid)}/login" autocomplete="off">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" required autofocus>
<button type="submit">Sign in to ${escapeHtml(clientId)}</button>
</form></main></body></html>`;
}

/**
 * A real OpenID provider for local use and tests: one public client (PKCE), a one-field login page,
 * consent implied. Which e-mails may sign in is the application's decision, not this provider's.
 */
export function devIdentityProvider(options: { appUrl: string; clientId: string; cookieSecret: string; kv: KeyValueStore }): {
  issuer: string;
  middleware: Middleware;
} {
  const issuer = `${options.appUrl}${DEV_IDP_PATH}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        token_endpoint_auth_method: 'none',
        redirect_uris: [`${options.appUrl}/api/auth/callback`],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    // Shared by every server process: any of them may take any step of a sign-in.
    adapter: (model) => new DevIdentityStore(options.kv, model),
    jwks: { keys: [devSigningKey(options.cookieSecret)] },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 8 * 3600, Grant: 8 * 3600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
    cookies: { keys: [options.cookieSecret] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    scopes: ['openid', 'email'],
    features: { devInteractions: { enabled: false } },
    findAccount: async (_ctx, accountId) => ({
      accountId,
      claims: async () => ({ sub: accountId, email: accountId, email_verified: true }),
    }),
    interactions: { url: (_ctx, interaction) => `${DEV_IDP_PATH}/interaction/${interaction.uid}` },
    // First-party development client: the grant is implied, so no consent page is ever shown.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email');
      await grant.save();
      return grant;
    },
  });
  provider.proxy = true;

  const form = koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: '4kb' });
  const interactions: Middleware = async (ctx, next) => {
    const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(ctx.path);
    if (!match) return next();
    const [, uid, login] = match;
    if (!login && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = loginPage(details.uid, String(details.params.client_id ?? options.clientId));
      return;
    }
    if (login && ctx.method === 'POST') {
      await form(ctx, async () => {});
      const email = String((ctx.request.body as Record<string, unknown>)?.email ?? '')
        .trim()
        .toLowerCase();
      if (!email.includes('@')) {
        ctx.status = 400;
        ctx.type = 'html';
        ctx.body = loginPage(uid!, options.clientId);
        return;
      }
      await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: email } }, { mergeWithLastSubmission: false });
      ctx.respond = false;
      return;
    }
    return next();
  };

  return { issuer, middleware: mount(DEV_IDP_PATH, compose([interactions, mount(provider)])) };
}
