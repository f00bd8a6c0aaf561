import * as client from 'openid-client';

export interface SignInRequest {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The relying party: authorization code with PKCE, state and nonce, against the configured issuer. */
export class OidcClient {
  private configuration: Promise<client.Configuration> | undefined;
  private readonly issuer: string;
  private readonly clientId: string;
  private readonly clientSecret: string | undefined;
  readonly redirectUri: string;

  constructor(options: { issuer: string; clientId: string; clientSecret: string | undefined; redirectUri: string }) {
    this.issuer = options.issuer;
    this.clientId = options.clientId;
    this.clientSecret = options.clientSecret;
    this.redirectUri = options.redirectUri;
  }

  /** Discovery happens on first use (the development issuer is this very server) and is retried after a failure. */
  private config(): Promise<client.Configuration> {
    this.configuration ??= client
      .discovery(
        new URL(this.issuer),
        this.clientId,
        this.clientSecret,
        this.clientSecret ? undefined : client.None(),
        this.issuer.startsWith('http://') ? { execute: [client.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw error;
      });
    return this.configuration;
  }

  async startSignIn(): Promise<SignInRequest> {
    const config = await this.config();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, state, nonce, codeVerifier };
  }

  /** Exchanges the callback's code and returns the signed-in e-mail (from the ID token, else userinfo). */
  async finishSignIn(callbackUrl: URL, checks: { state: string; nonce: string; codeVerifier: string }): Promise<string | null> {
    const config = await this.config();
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) return null;
    let email = typeof claims.email === 'string' ? claims.email : undefined;
    if (!email) {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      email = typeof info.email === 'string' ? info.email : undefined;
    }
    return email ? email.trim().toLowerCase() : null;
  }
}
