import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStorage, type Storage } from '../storage/database.ts';

/**
 * With DATABASE_URL (the real PostgreSQL), each test server gets a database of its own on that
 * server, dropped afterwards; without it, an in-memory PGlite. Tests never share rows by accident.
 */
export async function createTestDatabase(): Promise<{ databaseUrl: string | undefined; dataDir: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { databaseUrl: undefined, dataDir: 'memory://', drop: async () => {} };
  const url = new URL(base);
  const name = `${url.pathname.slice(1) || 'test'}_t${randomBytes(5).toString('hex')}`;
  await withAdmin(base, (client) => client.query(`create database "${name}"`));
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir: 'memory://',
    drop: () => withAdmin(base, (client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => {}),
  };
}

/** Storage on a test database of its own (as above), migrated; closing it also drops the database. */
export async function openTestStorage(): Promise<Storage> {
  const database = await createTestDatabase();
  const storage = await openStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  return {
    ...storage,
    close: async () => {
      await storage.close();
      await database.drop();
    },
  };
}

async function withAdmin<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}
