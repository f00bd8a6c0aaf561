import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('configuration', () => {
  it('has working defaults for the local demo', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, env: 'development', allowedEmailDomain: 'example.org', seed: 'demo', databaseUrl: undefined });
    expect(config.appUrl).toBe('http://localhost:3000');
  });

  it('puts a relative DATA_DIR in the repository, whichever folder the process started in', () => {
    const repository = path.resolve(import.meta.dirname, '../..');
    expect(loadConfig({}).dataDir).toBe(path.join(repository, '.data'));
    expect(loadConfig({ DATA_DIR: 'elsewhere/db' }).dataDir).toBe(path.join(repository, 'elsewhere', 'db'));
    expect(loadConfig({ DATA_DIR: '/var/lib/csp' }).dataDir).toBe('/var/lib/csp');
    expect(loadConfig({ DATA_DIR: 'memory://' }).dataDir).toBe('memory://');
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
