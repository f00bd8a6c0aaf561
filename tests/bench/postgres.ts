/**
 * The benchmarks' PostgreSQL: node-postgres (the server package's dependency), a database of each
 * benchmark's own on DATABASE_URL's server, and bulk inserts for fixtures.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createScratchDatabase, withPgClient, type ScratchDatabase } from '../../server/src/testing/postgres.ts';
import { DATABASE_URL, ROOT, RUN_ID } from './config.ts';

// node-postgres, loaded from the server package (its dependency), typed to what the suite uses.

interface PgResult<R> {
  rows: R[];
  rowCount: number | null;
}
export interface PgQueryable {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgResult<R>>;
}
export interface PgPool extends PgQueryable {
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): void;
}
interface PgModule {
  Pool: new (config: { connectionString: string; max?: number }) => PgPool;
}
export const pg = createRequire(path.join(ROOT, 'server/package.json'))('pg') as PgModule;

/** A fresh database on the PostgreSQL server of DATABASE_URL: `csp_bench_<run>_<label>_<random>`. */
export function createDatabase(label: string): Promise<ScratchDatabase> {
  return createScratchDatabase(DATABASE_URL, `csp_bench_${RUN_ID}_${label}_${randomBytes(3).toString('hex')}`.toLowerCase());
}

/** Drops every database a run left behind (a killed benchmark cannot clean up after itself). */
export async function dropRunDatabases(runId = RUN_ID): Promise<string[]> {
  return withPgClient(DATABASE_URL, async (client) => {
    const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [`csp_bench_${runId}_%`]);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
    return rows.map((row) => row.datname);
  });
}

/** Inserts rows in multi-row statements (under PostgreSQL's 65,535 parameters). */
export async function insertRows(db: PgQueryable, table: string, columns: string[], rows: unknown[][], casts: Record<string, string> = {}): Promise<void> {
  const perStatement = Math.max(1, Math.floor(30_000 / columns.length));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const values: unknown[] = [];
    const tuples = chunk.map((row) => {
      const placeholders = row.map((value, column) => {
        values.push(value);
        const cast = casts[columns[column]!];
        return `$${values.length}${cast ? `::${cast}` : ''}`;
      });
      return `(${placeholders.join(',')})`;
    });
    await db.query(`insert into ${table} (${columns.join(',')}) values ${tuples.join(',')}`, values);
  }
}
