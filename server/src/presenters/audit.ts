import type { auditLogs } from '../storage/schema.ts';

export function presentAuditRecord(row: typeof auditLogs.$inferSelect) {
  return {
    _id: row.id,
    actorId: row.actorId,
    actorEmail: row.actorEmail,
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    summary: row.summary,
    ip: row.ip,
    createdAt: row.createdAt.toISOString(),
  };
}
