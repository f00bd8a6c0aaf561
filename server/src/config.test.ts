import path from 'node:path';
import { availableParallelism } from 'node:os';
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

  it('sends mail through SMTP_URL; without it keeps mail for the development mailbox, or in production holds it queued', () => {
    expect(loadConfig({}).mail).toMatchObject({
      transport: 'mailbox',
      smtpUrl: undefined,
      from: '"Consolidated School Plans" <no-reply@example.org>',
      ratePerMinute: 120,
    });
    const smtps = loadConfig({
      SMTP_URL: 'smtps://mailer:p%40ss@smtp.example.org:465',
      MAIL_FROM: 'Plans <plans@example.org>',
      MAIL_RATE_PER_MINUTE: '30',
    }).mail;
    expect(smtps).toMatchObject({
      transport: 'smtp',
      smtpUrl: 'smtps://mailer:p%40ss@smtp.example.org:465',
      from: 'Plans <plans@example.org>',
      ratePerMinute: 30,
    });
    const production = { NODE_ENV: 'production', OIDC_ISSUER: 'https://login.example.org', OIDC_CLIENT_ID: 'csp', SESSION_SECRET: 'x'.repeat(32) };
    expect(loadConfig(production).mail.transport).toBe('held');
    for (const bad of [{ SMTP_URL: 'https://smtp.example.org' }, { SMTP_URL: 'smtp server' }, { MAIL_RATE_PER_MINUTE: '0' }, { MAIL_DAILY_HOUR: '24' }]) {
      expect(() => loadConfig(bad), JSON.stringify(bad)).toThrow(ConfigError);
    }
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

  it('runs one process unless WORKERS asks for more, and more only on PostgreSQL with Redis', () => {
    const shared = { DATABASE_URL: 'postgres://db.example.org/csp', REDIS_URL: 'redis://cache.example.org:6379' };
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ ...shared, WORKERS: '4' }).workers).toBe(4);
    expect(loadConfig({ ...shared, WORKERS: 'auto' }).workers).toBe(availableParallelism());
    for (const bad of ['0', '-2', '1.5', 'two', '']) expect(() => loadConfig({ ...shared, WORKERS: bad }), bad).toThrow(/WORKERS: a positive integer, or auto/);
    expect(() => loadConfig({ WORKERS: '2', REDIS_URL: shared.REDIS_URL })).toThrow(/WORKERS: more than one worker needs DATABASE_URL/);
    expect(() => loadConfig({ WORKERS: '2', DATABASE_URL: shared.DATABASE_URL })).toThrow(/WORKERS: more than one worker needs REDIS_URL/);
    expect(() => loadConfig({ ...shared, WORKERS: '2', PORT: '0' })).toThrow(/WORKERS: more than one worker needs a fixed PORT/);
    const neither = /needs DATABASE_URL[\s\S]*needs REDIS_URL/;
    expect(() => loadConfig({ WORKERS: '2' })).toThrow(neither);
  });

  it('refuses production without an identity provider and a real secret', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/OIDC_ISSUER[\s\S]*SESSION_SECRET|SESSION_SECRET[\s\S]*OIDC_ISSUER/);
    expect(
      loadConfig({ NODE_ENV: 'production', OIDC_ISSUER: 'https://idp.example.org', OIDC_CLIENT_ID: 'csp', SESSION_SECRET: 'x'.repeat(32) }).isProduction,
    ).toBe(true);
  });
});
