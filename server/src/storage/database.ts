import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema.ts';

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Storage {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Rows of a raw query, whatever the driver's result shape. */
  rows<T>(query: ReturnType<typeof sql>): Promise<T[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATION_LOCK = 7_321_001;

/** Rows of a raw query on a database or transaction, whatever the driver's result shape. */
export async function rowsOf<T>(db: Database, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] } | T[];
  return Array.isArray(result) ? result : result.rows;
}
const MIGRATIONS_FOLDER = path.resolve(import.meta.dirname, '../../drizzle');

export interface StorageOptions {
  databaseUrl: string | undefined;
  /** PGlite folder, or `memory://` for a throwaway database. */
  dataDir: string;
  poolSize?: number;
  /** Bring the schema up to date (default); false where another process has just done it. */
  migrate?: boolean;
}

/** Opens PostgreSQL (DATABASE_URL) or the embedded PGlite, and brings the schema up to date. */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  const storage = options.databaseUrl ? await openPostgres(options.databaseUrl, options.poolSize ?? 20) : await openPglite(options.dataDir);
  if (options.migrate === false) return storage;
  try {
    await storage.migrate();
  } catch (error) {
    await storage.close();
    throw error;
  }
  return storage;
}

async function openPostgres(url: string, poolSize: number): Promise<Storage & { migrate(): Promise<void> }> {
  const { Pool } = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const { migrate } = await import('drizzle-orm/node-postgres/migrator');
  // Connections idle for a minute close (pg's default is 10 s). Collaboration stores come every
  // 10 s per document, so a shorter wait closed connections that the next burst of stores opened
  // again, each a new PostgreSQL backend process started in the middle of live editing.
  const pool = new Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 60_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = drizzle({ client: pool, schema }) as unknown as Database;
  return {
    db,
    kind: 'postgres',
    rows: async <T>(query: ReturnType<typeof sql>) => ((await db.execute(query)) as unknown as { rows: T[] }).rows,
    ping: async () => void (await pool.query('select 1')),
    // Processes starting together on a fresh database take turns: the migrator itself takes no lock.
    migrate: async () => {
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
        await migrate(db as never, { migrationsFolder: MIGRATIONS_FOLDER });
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

async function openPglite(dataDir: string): Promise<Storage & { migrate(): Promise<void> }> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  const client = await PGlite.create(inMemory ? dataDir : path.resolve(dataDir));
  const db = drizzle({ client, schema }) as unknown as Database;
  return {
    db,
    kind: 'pglite',
    rows: async <T>(query: ReturnType<typeof sql>) => ((await db.execute(query)) as unknown as { rows: T[] }).rows,
    ping: async () => void (await client.query('select 1')),
    migrate: () => migrate(db as never, { migrationsFolder: MIGRATIONS_FOLDER }),
    close: () => client.close(),
  };
}
