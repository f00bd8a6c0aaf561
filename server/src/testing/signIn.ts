import { HttpClient } from './httpClient.ts';

export interface SignInOutcome {
  /** Where the browser ended: the callbackUrl, or /login?error=... */
  location: string;
  client: HttpClient;
}

/**
 * Signs in through the real OpenID Connect flow against the bundled development provider, as a
 * browser does: follow redirects, submit the one-field login form, land back on the app.
 */
export async function signInFlow(baseUrl: string, email: string, callbackUrl = '/plans'): Promise<SignInOutcome> {
  const client = new HttpClient(baseUrl);
  let response = await client.request('GET', `/api/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`);
  for (let hop = 0; hop < 20; hop++) {
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get('location')!;
      const next = new URL(location, baseUrl);
      if (next.pathname === '/login' || next.pathname === callbackUrl.split('?')[0]) {
        return { location: next.pathname + next.search, client };
      }
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
  throw new Error('sign-in flow did not finish');
}

/** A signed-in client, or an error naming where the flow ended. */
export async function signIn(baseUrl: string, email: string): Promise<HttpClient> {
  const { location, client } = await signInFlow(baseUrl, email);
  if (location.startsWith('/login')) throw new Error(`sign-in of ${email} refused: ${location}`);
  return client;
}
