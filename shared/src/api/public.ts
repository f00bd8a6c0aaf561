import { z } from 'zod';

const clip = (max: number) => z.string().transform((value) => value.slice(0, max));

/** A browser error report: bounded fields (long stacks and URLs are clipped, a long message refused). */
export const clientErrorSchema = z.object({
  message: z.string().min(1).max(2000),
  stack: clip(8000).optional(),
  url: clip(2000).optional(),
  userAgent: clip(500).optional(),
});
export type ClientErrorReport = z.infer<typeof clientErrorSchema>;

/** POST /api/client-errors: the stored report's id. */
export const clientErrorResponseSchema = z.object({ success: z.literal(true), id: z.string() });
export type ClientErrorResponse = z.infer<typeof clientErrorResponseSchema>;

/** GET /api/public/overview (docs/decisions.md). */
export const publicOverviewSchema = z.object({
  currentYear: z.string(),
  previousYear: z.string(),
  sectionCount: z.number().int(),
  schoolsServed: z.number().int(),
  currentYearPlans: z.number().int(),
  /** Plans of the current year someone has started (the dashboard's meaning of started). */
  startedThisYear: z.number().int(),
  submittedThisYear: z.number().int(),
});
export type PublicOverview = z.infer<typeof publicOverviewSchema>;
