import { z } from 'zod';
import { FIRST_ACCEPTED_YEAR, LAST_ACCEPTED_YEAR, isAcceptedSchoolYear } from '../schoolYear.ts';

/** Record ids: 24 lowercase hex characters, like the original application's object ids. */
export const ID_PATTERN = /^[0-9a-f]{24}$/;

/** Field schemas more than one resource uses. */
export const idSchema = z.string().regex(ID_PATTERN, 'must be a 24-character hex id');
export const schoolYearSchema = z
  .string()
  .refine(
    isAcceptedSchoolYear,
    `must be a school year like 2026-2027, from ${FIRST_ACCEPTED_YEAR}-${FIRST_ACCEPTED_YEAR + 1} to ${LAST_ACCEPTED_YEAR}-${LAST_ACCEPTED_YEAR + 1}`,
  );
export const emailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email('must be an e-mail address'));
export const levelSchema = z.number().int().min(1).max(5);
export const schoolNameSchema = z.string().trim().min(1).max(200);

/** `page`/`limit` paging; limit at most 200. */
export const pagingSchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** Timestamps in JSON: ISO 8601 UTC strings. */
export const isoTimeSchema = z.string();
export const nullableIsoTimeSchema = isoTimeSchema.nullable();

/** Every error answer: `{ error }`, with details some routes add (never secrets or answers). */
export const errorBodySchema = z.looseObject({ error: z.string(), message: z.string().optional(), details: z.unknown().optional() });
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const successSchema = z.object({ success: z.literal(true) });
