import { z } from 'zod';
import { STEP_KEY_PATTERN } from '../steps.ts';
import { schoolYearSchema } from './common.ts';
import { isValidSchoolYear } from '../schoolYear.ts';

export const yearQuerySchema = z.object({ schoolYear: schoolYearSchema.optional() });

/** Removing a year's settings also takes labels stored before labels were range-checked. */
export const deleteYearSchema = z.strictObject({ schoolYear: z.string().refine(isValidSchoolYear, 'must be a school year label like 2026-2027') });

export const nextYearSchema = z.strictObject({ fromYear: schoolYearSchema.optional() });

export const deadlineSchema = z.strictObject({
  stepKey: z.string().regex(STEP_KEY_PATTERN),
  label: z.string().trim().min(1).max(200),
  dueDate: z.iso.date(),
});

export const districtGoalSchema = z.strictObject({
  key: z.string().trim().min(1).max(80),
  label: z.string().trim().min(1).max(200),
  target: z.union([z.number(), z.string().max(100)]),
  unit: z.string().trim().max(40),
});

export const updateYearSchema = z.strictObject({
  schoolYear: schoolYearSchema,
  archived: z.boolean().optional(),
  questionBankVersion: z.number().int().positive().optional(),
  deadlines: z.array(deadlineSchema).max(100).optional(),
  districtGoals: z.array(districtGoalSchema).max(100).optional(),
});

const termSchema = z.object({ start: z.string(), end: z.string(), startLabel: z.string(), endLabel: z.string() });

/** GET /api/school-year */
export const yearSettingsSchema = z.object({
  schoolYear: z.string(),
  archived: z.boolean(),
  questionBankVersion: z.number().int().nullable(),
  deadlines: z.array(deadlineSchema),
  districtGoals: z.array(districtGoalSchema),
  term: termSchema,
  stored: z.boolean(),
  planCounts: z.object({ total: z.number().int(), unfinished: z.number().int(), liveOverrides: z.number().int() }),
  cycle: z.object({
    latestYear: z.string(),
    nextYear: z.string(),
    term: termSchema,
    carriedOver: z.object({
      questionBankVersion: z.number().int().nullable(),
      districtGoals: z.array(districtGoalSchema),
      deadlines: z.array(deadlineSchema),
    }),
  }),
});
export type YearSettings = z.infer<typeof yearSettingsSchema>;

/** POST and PUT /api/school-year */
export const yearSettingsResponseSchema = z.object({ success: z.literal(true), settings: yearSettingsSchema });
export type YearSettingsResponse = z.infer<typeof yearSettingsResponseSchema>;

/** DELETE /api/school-year: the year whose settings were removed. */
export const deleteYearResponseSchema = z.object({ success: z.literal(true), schoolYear: z.string() });
export type DeleteYearResponse = z.infer<typeof deleteYearResponseSchema>;

const planCountsSchema = z.object({ total: z.number().int(), unfinished: z.number().int(), liveOverrides: z.number().int() });

/** GET /api/school-year/years (Super Admin): every year with stored settings or plans, newest first, and the bank versions a year may pin. */
export const yearListSchema = z.object({
  currentYear: z.string(),
  years: z.array(
    z.object({
      schoolYear: z.string(),
      stored: z.boolean(),
      archived: z.boolean(),
      questionBankVersion: z.number().int().nullable(),
      planCounts: planCountsSchema,
    }),
  ),
  bankVersions: z.array(
    z.object({
      version: z.number().int(),
      status: z.enum(['published', 'archived']),
      schoolYear: z.string().nullable(),
      publishedAt: z.string().nullable(),
    }),
  ),
});
export type YearList = z.infer<typeof yearListSchema>;
