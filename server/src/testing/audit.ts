/** Audit records for tests: straight from the table, and as the CSV export must write them. */
import { desc } from 'drizzle-orm';
import type { AuditRecord } from '@csp/shared/api/audit';
import type { TestServer } from './testServer.ts';
import { auditLogs } from '../storage/schema.ts';

/** Audit records, newest first, straight from the table. */
export async function auditRecords(server: TestServer) {
  return server.services.storage.db.select().from(auditLogs).orderBy(desc(auditLogs.createdAt), desc(auditLogs.id));
}

/** The cells the CSV export must write for a record of the list route, in AUDIT_CSV_COLUMNS order (before formula neutralising). */
export const auditCsvRow = (log: AuditRecord): string[] => [
  log.createdAt,
  log.actorEmail ?? '',
  log.actorId ?? '',
  log.action,
  log.targetType,
  log.targetId ?? '',
  JSON.stringify(log.summary),
  log.ip ?? '',
  log._id,
];
