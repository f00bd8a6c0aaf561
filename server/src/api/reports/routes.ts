import Router from '@koa/router';
import { currentSchoolYear } from '@csp/shared';
import type { Services } from '../../services.ts';
import { superAdminOnly } from '../../auth/gate.ts';
import { parse } from '../../http/validate.ts';
import { reportYearQuerySchema, statusTimelineSchema, yearFiguresSchema } from '@csp/shared/api/reports';
import { yearReportCsv } from '../../domain/district/yearReport.ts';
import { statusTimeline } from '../../domain/district/statusTimeline.ts';
import { yearFigures } from '../../domain/district/yearFigures.ts';
import { mediaAnswer, operations } from '../../http/operation.ts';

const operation = operations('Reports', {
  yearCsv: { summary: 'A year’s plans as CSV', query: reportYearQuerySchema, responses: { 200: mediaAnswer('text/csv', 'One row per plan.') } },
  timeline: { summary: 'When a year’s plans were created, submitted and reviewed', query: reportYearQuerySchema, responses: { 200: statusTimelineSchema } },
  figures: { summary: 'A year’s district figures', query: reportYearQuerySchema, responses: { 200: yearFiguresSchema } },
});

/** District reports: Super Admins only (never shown to principals beyond their own school). */
export function reportsRoutes(services: Services): Router {
  const router = new Router({ prefix: '/admin/reports' });

  router.get('/year.csv', operation.yearCsv, superAdminOnly, async (ctx) => {
    const { schoolYear = currentSchoolYear() } = parse(reportYearQuerySchema, ctx.query);
    ctx.type = 'text/csv; charset=utf-8';
    ctx.attachment(`Consolidated_Plans_${schoolYear}.csv`);
    ctx.body = await yearReportCsv(services, schoolYear);
  });

  router.get('/timeline', operation.timeline, superAdminOnly, async (ctx) => {
    const { schoolYear = currentSchoolYear() } = parse(reportYearQuerySchema, ctx.query);
    ctx.body = await statusTimeline(services, schoolYear);
  });

  router.get('/figures', operation.figures, superAdminOnly, async (ctx) => {
    const { schoolYear = currentSchoolYear() } = parse(reportYearQuerySchema, ctx.query);
    ctx.body = await yearFigures(services, schoolYear);
  });

  return router;
}
