import Router from '@koa/router';
import { currentSchoolYear } from '@csp/shared';
import type { Services } from '../../services.ts';
import { authOf, superAdminOnly, callerOf } from '../../auth/gate.ts';
import { parse } from '../../http/validate.ts';
import { readYearSettings } from '../../domain/schoolYears/readYearSettings.ts';
import { setUpNextYear } from '../../domain/schoolYears/setUpNextYear.ts';
import { updateYearSettings } from '../../domain/schoolYears/updateYearSettings.ts';
import { deleteYearSettings } from '../../domain/schoolYears/deleteYearSettings.ts';
import { listSchoolYears } from '../../domain/schoolYears/listSchoolYears.ts';
import {
  deleteYearResponseSchema,
  deleteYearSchema,
  nextYearSchema,
  updateYearSchema,
  yearListSchema,
  yearQuerySchema,
  yearSettingsResponseSchema,
  yearSettingsSchema,
  type DeleteYearResponse,
  type YearSettingsResponse,
} from '@csp/shared/api/schoolYears';
import { operations } from '../../http/operation.ts';

const operation = operations('School years', {
  read: { summary: 'A school year’s settings', query: yearQuerySchema, responses: { 200: yearSettingsSchema } },
  list: { summary: 'Every school year, and the bank versions a year may pin', responses: { 200: yearListSchema } },
  setUpNext: { summary: 'Set up the next school year', body: nextYearSchema, responses: { 200: yearSettingsResponseSchema } },
  update: { summary: 'Update a school year’s settings', body: updateYearSchema, responses: { 200: yearSettingsResponseSchema } },
  remove: { summary: 'Remove a school year’s settings', body: deleteYearSchema, responses: { 200: deleteYearResponseSchema } },
});

export function schoolYearRoutes(services: Services): Router {
  const router = new Router({ prefix: '/school-year' });

  router.get('/', operation.read, async (ctx) => {
    authOf(ctx);
    const { schoolYear = currentSchoolYear() } = parse(yearQuerySchema, ctx.query);
    ctx.body = await readYearSettings(services, schoolYear);
  });

  /** Super Admin: every year with settings or plans, and the bank versions a year may pin. */
  router.get('/years', operation.list, superAdminOnly, async (ctx) => {
    ctx.body = await listSchoolYears(services);
  });

  router.post('/', operation.setUpNext, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const { fromYear } = parse(nextYearSchema, ctx.request.body);
    const created = await setUpNextYear(services, caller, fromYear);
    ctx.body = { success: true, settings: await readYearSettings(services, created.schoolYear) } satisfies YearSettingsResponse;
  });

  router.put('/', operation.update, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const { schoolYear, ...changes } = parse(updateYearSchema, ctx.request.body);
    await updateYearSettings(services, caller, schoolYear, changes);
    ctx.body = { success: true, settings: await readYearSettings(services, schoolYear) } satisfies YearSettingsResponse;
  });

  router.delete('/', operation.remove, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const { schoolYear } = parse(deleteYearSchema, ctx.request.body);
    await deleteYearSettings(services, caller, schoolYear);
    ctx.body = { success: true, schoolYear } satisfies DeleteYearResponse;
  });

  return router;
}
