import { z } from 'zod';
import { PLAN_STATUSES } from '../roles.ts';
import { pagingSchema, schoolYearSchema } from './common.ts';

export const reportYearQuerySchema = z.object({ schoolYear: schoolYearSchema.optional() });

/** GET /api/admin/reports/figures: a year's district figures for Super Admins. */
export const yearFiguresSchema = z.object({
  schoolYear: z.string(),
  planCount: z.number().int(),
  byStatus: z.array(z.object({ status: z.enum(PLAN_STATUSES), count: z.number().int() })),
  completionByStep: z.array(z.object({ stepKey: z.string(), title: z.string(), completed: z.number().int(), total: z.number().int() })),
  /** Plans of the year nobody has started (docs/decisions.md): listed a page at a time by `GET /api/admin/reports/not-started`. */
  notStartedCount: z.number().int(),
  overdue: z.array(z.object({ stepKey: z.string(), label: z.string(), dueDate: z.string(), plansNotComplete: z.number().int() })),
  /** Every deadline of the year with the plans of the whole district that have not completed its step, soonest first. */
  deadlines: z.array(z.object({ stepKey: z.string(), label: z.string(), dueDate: z.string(), plansNotComplete: z.number().int() })),
});
export type YearFigures = z.infer<typeof yearFiguresSchema>;

/** GET /api/admin/reports/timeline: a page of the year's status events, oldest first (a district's year holds thousands). */
export const timelineQuerySchema = pagingSchema.extend({ schoolYear: schoolYearSchema.optional() });

/** GET /api/admin/reports/timeline: plans in each status now, and a page of when each plan of the year was created (or copied), submitted and reviewed. */
export const statusTimelineSchema = z.object({
  schoolYear: z.string(),
  statusCounts: z.partialRecord(z.enum(PLAN_STATUSES), z.number().int()),
  events: z.array(
    z.object({
      at: z.string(),
      action: z.string(),
      formId: z.string().nullable(),
      schoolName: z.string(),
      from: z.string().nullable(),
      to: z.string(),
      actorEmail: z.string().nullable(),
    }),
  ),
  /** Events of the year in all; `events` is page `page` of them, `limit` a page. */
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});
export type StatusTimeline = z.infer<typeof statusTimelineSchema>;

/** GET /api/admin/reports/not-started: a page of the year's plans nobody has started, by school. */
export const notStartedQuerySchema = pagingSchema.extend({ schoolYear: schoolYearSchema.optional() });
export const notStartedListSchema = z.object({
  plans: z.array(
    z.object({
      formId: z.string(),
      schoolName: z.string(),
      /** A copy of last year's plan (rollover or duplicate) that brought answers nobody has saved in yet. */
      copied: z.boolean(),
    }),
  ),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});
export type NotStartedList = z.infer<typeof notStartedListSchema>;
