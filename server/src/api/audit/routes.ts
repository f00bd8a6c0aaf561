import Router from '@koa/router';
import { Readable } from 'node:stream';
import { auditActorListSchema, auditActorsQuerySchema, auditFilterSchema, type AuditActorList, type AuditFilter } from '@csp/shared/api/audit';
import type { Services } from '../../services.ts';
import { authOf, superAdminOnly } from '../../auth/gate.ts';
import { parse } from '../../http/validate.ts';
import { auditLogCsv } from '../../domain/audit/auditLogCsv.ts';
import { searchAuditActors } from '../../domain/audit/searchAuditActors.ts';
import { mediaAnswer, operations } from '../../http/operation.ts';

/** `audit-log_2026-09-01_to_2026-11-25.csv`: the range in the name, only safe characters. */
function csvFileName(filter: AuditFilter): string {
  const part = (value: string | undefined, fallback: string) => (value ? value.replace(/[^0-9A-Za-z-]+/g, '-') : fallback);
  return `audit-log_${part(filter.from, 'start')}_to_${part(filter.to, 'now')}.csv`;
}

const operation = operations('Audit log', {
  exportCsv: {
    summary: 'The filtered audit log as CSV',
    description: 'The list’s filters without paging: every record of the range.',
    query: auditFilterSchema,
    responses: { 200: mediaAnswer('text/csv', 'One row per record, oldest first.') },
  },
  actors: { summary: 'People in the audit log whose e-mail contains `q`', query: auditActorsQuerySchema, responses: { 200: auditActorListSchema } },
});

/**
 * The audit log's companions of `GET /api/users/audit-logs` for the Audit log page, Super Admins
 * only: the CSV export of a filtered range, and the search for an actor by e-mail.
 */
export function auditRoutes(services: Services): Router {
  const router = new Router({ prefix: '/admin/audit-logs' });

  /** Every record of the filtered range (the list route's filters, no paging), streamed as CSV. */
  router.get('/export.csv', operation.exportCsv, superAdminOnly, async (ctx) => {
    const filter = parse(auditFilterSchema, ctx.query);
    await services.rateLimits.consume('export', authOf(ctx).user.id);
    const rows = Readable.from(auditLogCsv(services.storage.db, filter));
    rows.on('error', (error) => services.logger.error({ err: error }, 'audit-log CSV stopped part way'));
    ctx.type = 'text/csv; charset=utf-8';
    ctx.attachment(csvFileName(filter));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = rows;
  });

  router.get('/actors', operation.actors, superAdminOnly, async (ctx) => {
    const { q } = parse(auditActorsQuerySchema, ctx.query);
    await services.rateLimits.consume('users', authOf(ctx).user.id);
    ctx.body = { actors: await searchAuditActors(services.storage.db, q) } satisfies AuditActorList;
  });

  return router;
}
