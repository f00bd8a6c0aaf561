import { HttpClient } from './httpClient.ts';
import { SESSION_COOKIE } from '../auth/sessions.ts';

const isRedirect = (status: number) => status >= 300 && status < 400;

/**
 * The browser side of the real OpenID Connect flow against the bundled development provider, up
 * to the provider's redirect back to the app (not followed): follow redirects, submit the
 * one-field login form. Returns the client (holding the signed sign-in cookie) and the callback path.
 */
export async function flowToCallback(baseUrl: string, email: string, callbackUrl?: string, client = new HttpClient(baseUrl)) {
  const query = callbackUrl === undefined ? '' : `?callbackUrl=${encodeURIComponent(callbackUrl)}`;
  let response = await client.request('GET', `/api/auth/signin${query}`);
  for (let hop = 0; hop < 20; hop++) {
    if (isRedirect(response.status)) {
      const next = new URL(response.headers.get('location')!, baseUrl);
      if (next.origin !== new URL(baseUrl).origin) throw new Error(`sign-in left the app for ${next.href}`);
      if (next.pathname === '/api/auth/callback') return { client, callback: next.pathname + next.search };
      if (next.pathname === '/login') throw new Error(`sign-in refused before the callback: ${next.pathname}${next.search}`);
      response = await client.request('GET', next.pathname + next.search);
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (response.status !== 200 || !action || !/name="email"/.test(html)) {
      throw new Error(`sign-in flow stopped at ${response.status}: ${html.slice(0, 200)}`);
    }
    response = await client.request('POST', action, {
      body: new URLSearchParams({ email }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
  throw new Error('sign-in flow did not reach the callback');
}

export interface SignInOutcome {
  /** Where the browser ended: the callbackUrl, or /login?error=... */
  location: string;
  client: HttpClient;
}

/** The whole sign-in, as a browser does it, ending where the app sends the browser. */
export async function signInFlow(baseUrl: string, email: string, callbackUrl = '/plans'): Promise<SignInOutcome> {
  const { client, callback } = await flowToCallback(baseUrl, email, callbackUrl);
  const response = await client.request('GET', callback);
  if (!isRedirect(response.status)) throw new Error(`the callback answered ${response.status}`);
  return { location: response.headers.get('location')!, client };
}

/** A signed-in client, or an error naming where the flow ended. */
export async function signIn(baseUrl: string, email: string): Promise<HttpClient> {
  const { location, client } = await signInFlow(baseUrl, email);
  if (location.startsWith('/login')) throw new Error(`sign-in of ${email} refused: ${location}`);
  return client;
}

/** Signs several users in (the real OIDC flow) at once; one client per e-mail, in order. */
export async function signInAll<const Emails extends readonly string[]>(
  baseUrl: string,
  emails: Emails,
): Promise<{ -readonly [K in keyof Emails]: HttpClient }> {
  return (await Promise.all(emails.map((email) => signIn(baseUrl, email)))) as { -readonly [K in keyof Emails]: HttpClient };
}

/** The session token a signed-in client holds (its session cookie). */
export function sessionToken(client: HttpClient): string {
  const token = client.cookies.get(SESSION_COOKIE);
  if (!token) throw new Error('the client has no session cookie');
  return token;
}

/** A fresh client of `server` (its own address) that presents only this session token. */
export function clientWithToken(server: { url: string }, token: string): HttpClient {
  const client = new HttpClient(server.url);
  client.cookies.set(SESSION_COOKIE, token);
  return client;
}
