import { z } from 'zod';
import { PLAN_STATUSES } from '../roles.ts';
import { schoolYearSchema } from './common.ts';

export const reportYearQuerySchema = z.object({ schoolYear: schoolYearSchema.optional() });

/** GET /api/admin/reports/figures: a year's district figures for Super Admins. */
export const yearFiguresSchema = z.object({
  schoolYear: z.string(),
  planCount: z.number().int(),
  byStatus: z.array(z.object({ status: z.enum(PLAN_STATUSES), count: z.number().int() })),
  completionByStep: z.array(z.object({ stepKey: z.string(), title: z.string(), completed: z.number().int(), total: z.number().int() })),
  notStarted: z.array(z.object({ formId: z.string(), schoolName: z.string() })),
  overdue: z.array(z.object({ stepKey: z.string(), label: z.string(), dueDate: z.string(), plansNotComplete: z.number().int() })),
  /** Every deadline of the year with the plans of the whole district that have not completed its step, soonest first. */
  deadlines: z.array(z.object({ stepKey: z.string(), label: z.string(), dueDate: z.string(), plansNotComplete: z.number().int() })),
});
export type YearFigures = z.infer<typeof yearFiguresSchema>;

/** GET /api/admin/reports/timeline: plans in each status now, and when each plan of the year was created, submitted and reviewed. */
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
});
export type StatusTimeline = z.infer<typeof statusTimelineSchema>;
