import { sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Database } from './database.ts';

/** A page of a list: `page` from 1, `limit` rows each. */
export interface Paging {
  page: number;
  limit: number;
}

/** The rows before the page. */
export const offsetOf = ({ page, limit }: Paging): number => (page - 1) * limit;

/** How many rows the filtered list holds (its `total`), read beside the page. */
export async function countRows(db: Database, table: PgTable, where: SQL | undefined): Promise<number> {
  const [row] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(table)
    .where(where);
  return row?.total ?? 0;
}
