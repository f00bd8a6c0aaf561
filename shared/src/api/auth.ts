import { z } from 'zod';
import { ID_PATTERN } from './common.ts';
import { userSchema } from './users.ts';

/** Only same-site paths: an absolute or protocol-relative URL would be an open redirect. */
export const callbackUrlSchema = z
  .string()
  .max(2000)
  .refine((value) => value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\'), 'must be a path on this site')
  .catch('/plans');

export const signInQuerySchema = z.object({ callbackUrl: callbackUrlSchema.optional().default('/plans') });

export const previewBodySchema = z.strictObject({ userId: z.string().regex(ID_PATTERN, 'must be a user id') });

export const signInStateSchema = z.object({
  state: z.string(),
  nonce: z.string(),
  codeVerifier: z.string(),
  callbackUrl: callbackUrlSchema,
});

/** What the acting user may do across the district, as the server's policy answers it: the web app reads these, never levels. */
export const sessionAbilitiesSchema = z.object({
  /** The district's own pages: plans of every school, school years, the question bank, the audit log, system. */
  administerDistrict: z.boolean(),
  /** The Users page (a principal: the own school's staff). */
  administerUsers: z.boolean(),
  /** Starting plans (a principal: for the own school). */
  createPlans: z.boolean(),
  /** Previewing the app as a demo user (the signed-in Super Admin, also while previewing). */
  previewAs: z.boolean(),
});
export type SessionAbilities = z.infer<typeof sessionAbilitiesSchema>;

/** GET /api/auth/session: the acting user (the previewed demo user while previewing). */
export const sessionSchema = z.object({
  user: userSchema,
  previewing: z.boolean(),
  signedInAs: userSchema.optional(),
  abilities: sessionAbilitiesSchema,
  expires: z.string(),
});
export type Session = z.infer<typeof sessionSchema>;

/** POST and DELETE /api/auth/preview: the user now acting. */
export const previewResponseSchema = z.object({ success: z.literal(true), user: userSchema, previewing: z.boolean() });
export type PreviewResponse = z.infer<typeof previewResponseSchema>;
