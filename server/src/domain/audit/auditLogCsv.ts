import { and, desc, sql } from 'drizzle-orm';
import { AUDIT_CSV_COLUMNS, type AuditFilter } from '@csp/shared/api/audit';
import { csvRow } from '@csp/shared/csv';
import type { Database } from '../../storage/database.ts';
import { auditLogs } from '../../storage/schema.ts';
import { auditFilters } from './queryAuditLog.ts';

/** Records read per query: memory stays flat however long the range is. */
const CSV_BATCH_ROWS = 1000;

/**
 * Every record of the filtered range as CSV, newest first (the list's order), read in batches by
 * keyset (time, id) so no record is skipped or repeated however large the range. The cursor is
 * the stored time as text: PostgreSQL keeps microseconds that a JavaScript Date would drop.
 * Starts with a byte-order mark so spreadsheet programs read the text as UTF-8.
 */
export async function* auditLogCsv(db: Database, filter: AuditFilter, batchRows = CSV_BATCH_ROWS): AsyncGenerator<string> {
  yield `\uFEFF${csvRow(AUDIT_CSV_COLUMNS)}`;
  const where = auditFilters(filter);
  let cursor: { at: string; id: string } | null = null;
  for (;;) {
    const after: ReturnType<typeof sql> | undefined = cursor
      ? sql`(${auditLogs.createdAt}, ${auditLogs.id}) < (${cursor.at}::timestamptz, ${cursor.id})`
      : undefined;
    const rows: { record: typeof auditLogs.$inferSelect; at: string }[] = await db
      .select({ record: auditLogs, at: sql<string>`${auditLogs.createdAt}::text` })
      .from(auditLogs)
      .where(and(where, after))
      .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
      .limit(batchRows);
    if (rows.length === 0) return;
    yield rows
      .map(({ record }) =>
        csvRow([
          record.createdAt.toISOString(),
          record.actorEmail,
          record.actorId,
          record.action,
          record.targetType,
          record.targetId,
          JSON.stringify(record.summary ?? {}),
          record.ip,
          record.id,
        ]),
      )
      .join('');
    if (rows.length < batchRows) return;
    const last = rows.at(-1)!;
    cursor = { at: last.at, id: last.record.id };
  }
}
