import { z } from 'zod';
import { ID_PATTERN } from './common.ts';
import { STEP_KEY_PATTERN } from '../steps.ts';

/** Payloads clients emit on /realtime (DESIGN.md section 6). */
export const planJoinSchema = z.object({ formId: z.string().regex(ID_PATTERN), stepKey: z.string().regex(STEP_KEY_PATTERN).nullish() });
export const planLeaveSchema = z.object({ formId: z.string().regex(ID_PATTERN) });
export const presenceStepSchema = z.object({ formId: z.string().regex(ID_PATTERN), stepKey: z.string().regex(STEP_KEY_PATTERN).nullable() });
