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

/** GET /api/auth/session: the acting user (the previewed demo user while previewing). */
export const sessionSchema = z.object({
  user: userSchema,
  previewing: z.boolean(),
  signedInAs: userSchema.optional(),
  expires: z.string(),
});
export type Session = z.infer<typeof sessionSchema>;

/** POST and DELETE /api/auth/preview: the user now acting. */
export const previewResponseSchema = z.object({ success: z.literal(true), user: userSchema, previewing: z.boolean() });
export type PreviewResponse = z.infer<typeof previewResponseSchema>;
