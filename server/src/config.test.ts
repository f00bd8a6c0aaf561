import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('configuration', () => {
  it('has working defaults for the local demo', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, env: 'development', allowedEmailDomain: 'example.org', seed: 'demo', databaseUrl: undefined });
    expect(config.appUrl).toBe('http://localhost:3000');
  });

  it('names every bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url', SEED: 'everything' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url', SEED: 'everything' });
    } catch (error) {
      expect((error as Error).message).toMatch(/PORT/);
      expect((error as Error).message).toMatch(/DATABASE_URL/);
      expect((error as Error).message).toMatch(/SEED/);
    }
  });

  it('refuses production without an identity provider and a real secret', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/OIDC_ISSUER[\s\S]*SESSION_SECRET|SESSION_SECRET[\s\S]*OIDC_ISSUER/);
    expect(
      loadConfig({ NODE_ENV: 'production', OIDC_ISSUER: 'https://idp.example.org', OIDC_CLIENT_ID: 'csp', SESSION_SECRET: 'x'.repeat(32) }).isProduction,
    ).toBe(true);
  });
});
