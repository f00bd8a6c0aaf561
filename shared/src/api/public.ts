import { z } from 'zod';

const clip = (max: number) => z.string().transform((value) => value.slice(0, max));

/** A browser error report: bounded fields (long stacks and URLs are clipped, a long message refused). */
export const clientErrorSchema = z.object({
  message: z.string().min(1).max(2000),
  stack: clip(8000).optional(),
  url: clip(2000).optional(),
  userAgent: clip(500).optional(),
});

/** GET /api/public/overview (DESIGN.md section 4). */
export interface PublicOverview {
  currentYear: string;
  previousYear: string;
  sectionCount: number;
  schoolsServed: number;
  currentYearPlans: number;
  submittedThisYear: number;
}
