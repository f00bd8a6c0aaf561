import Router from '@koa/router';
import { currentSchoolYear } from '@csp/shared';
import type { Services } from '../../services.ts';
import { superAdminOnly } from '../../auth/gate.ts';
import { parse } from '../../http/validate.ts';
import {
  notStartedListSchema,
  notStartedQuerySchema,
  reportYearQuerySchema,
  statusTimelineSchema,
  timelineQuerySchema,
  yearFiguresSchema,
} from '@csp/shared/api/reports';
import { notStartedPlans } from '../../domain/district/notStartedPlans.ts';
import { yearReportCsv } from '../../domain/district/yearReport.ts';
import { statusTimeline } from '../../domain/district/statusTimeline.ts';
import { yearFigures } from '../../domain/district/yearFigures.ts';
import { mediaAnswer, operations } from '../../http/operation.ts';

const operation = operations('Reports', {
  yearCsv: { summary: 'A year’s plans as CSV', query: reportYearQuerySchema, responses: { 200: mediaAnswer('text/csv', 'One row per plan.') } },
  timeline: {
    summary: 'When a year’s plans were created, submitted and reviewed',
    description: 'A page of the year’s events, oldest first; a rollover’s copies are `plan.rollover` events.',
    query: timelineQuerySchema,
    responses: { 200: statusTimelineSchema },
  },
  figures: { summary: 'A year’s district figures', query: reportYearQuerySchema, responses: { 200: yearFiguresSchema } },
  notStarted: {
    summary: 'A page of the year’s plans nobody has started',
    description: 'Started: someone saved an answer in the plan, or it left draft. A copy from last year is not started until the school saves in it.',
    query: notStartedQuerySchema,
    responses: { 200: notStartedListSchema },
  },
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
    const { schoolYear = currentSchoolYear(), ...paging } = parse(timelineQuerySchema, ctx.query);
    ctx.body = await statusTimeline(services, schoolYear, paging);
  });

  router.get('/figures', operation.figures, superAdminOnly, async (ctx) => {
    const { schoolYear = currentSchoolYear() } = parse(reportYearQuerySchema, ctx.query);
    ctx.body = await yearFigures(services, schoolYear);
  });

  router.get('/not-started', operation.notStarted, superAdminOnly, async (ctx) => {
    const { schoolYear = currentSchoolYear(), ...paging } = parse(notStartedQuerySchema, ctx.query);
    ctx.body = await notStartedPlans(services, schoolYear, paging);
  });

  return router;
}
