/**
 * Throwaway databases on a real PostgreSQL server (DATABASE_URL's): created under a name the caller
 * chooses, dropped with force afterwards. The test databases and the benchmarks' databases both
 * come from here.
 */
import pg from 'pg';

/** Runs `run` on a connection of its own to `url`, closed afterwards. */
export async function withPgClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export interface ScratchDatabase {
  name: string;
  url: string;
  /** Drops the database, closing any connection still open to it. */
  drop(): Promise<void>;
}

/** Creates database `name` on the server of `serverUrl` and returns its URL. */
export async function createScratchDatabase(serverUrl: string, name: string): Promise<ScratchDatabase> {
  await withPgClient(serverUrl, (client) => client.query(`create database "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => withPgClient(serverUrl, (client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => {}),
  };
}
