import { randomBytes } from 'node:crypto';
import { openStorage, type Storage } from '../storage/database.ts';
import { createScratchDatabase } from './postgres.ts';

/**
 * With DATABASE_URL (the real PostgreSQL), each test server gets a database of its own on that
 * server, dropped afterwards; without it, an in-memory PGlite. Tests never share rows by accident.
 */
export async function createTestDatabase(): Promise<{ databaseUrl: string | undefined; dataDir: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { databaseUrl: undefined, dataDir: 'memory://', drop: async () => {} };
  const database = await createScratchDatabase(base, `${new URL(base).pathname.slice(1) || 'test'}_t${randomBytes(5).toString('hex')}`);
  return { databaseUrl: database.url, dataDir: 'memory://', drop: database.drop };
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
