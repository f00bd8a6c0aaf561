import type { AuditRecord } from '@csp/shared/api/audit';
import type { auditLogs } from '../storage/schema.ts';

export function presentAuditRecord({
  record,
  actorName,
  targetName,
}: {
  record: typeof auditLogs.$inferSelect;
  actorName: string | null;
  targetName: string | null;
}): AuditRecord {
  return {
    _id: record.id,
    actorId: record.actorId,
    actorEmail: record.actorEmail,
    actorName,
    action: record.action,
    targetType: record.targetType,
    targetId: record.targetId,
    targetName,
    summary: record.summary,
    ip: record.ip,
    createdAt: record.createdAt.toISOString(),
  };
}
