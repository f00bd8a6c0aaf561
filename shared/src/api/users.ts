import { z } from 'zod';
import { COLLABORATION_FLAGS } from '../roles.ts';
import { emailSchema, idSchema, levelSchema, nullableIsoTimeSchema, pagingSchema, schoolNameSchema } from './common.ts';

const nameSchema = z.string().trim().min(1).max(200);
const titleSchema = z.string().trim().max(200);

/** A yes/no query parameter: only `true` or `false`. */
const flagParam = z.enum(['true', 'false'], 'must be true or false').transform((value) => value === 'true');

/** Columns the user list sorts by (`sort`), ascending unless `order=desc`. */
export const USER_SORTS = ['name', 'email', 'level', 'schoolName', 'isActive', 'lastSignedInAt', 'createdAt'] as const;
export type UserSort = (typeof USER_SORTS)[number];

export const listUsersQuerySchema = pagingSchema.extend({
  schoolName: z.string().max(200).optional(),
  q: z.string().max(200).optional(),
  /** Only users at this level (1 to 5). */
  level: z.coerce.number().int('must be a level from 1 to 5').min(1, 'must be a level from 1 to 5').max(5, 'must be a level from 1 to 5').optional(),
  /** `true`: active users only; `false`: deactivated users only. */
  active: flagParam.optional(),
  /** `true`: users who have never signed in; `false`: users who have. */
  neverSignedIn: flagParam.optional(),
  sort: z.enum(USER_SORTS, `must be one of ${USER_SORTS.join(', ')}`).optional(),
  order: z.enum(['asc', 'desc'], 'must be asc or desc').default('asc'),
});
export type ListUsersQuery = z.infer<typeof listUsersQuerySchema>;

export const createUserSchema = z.strictObject({
  name: nameSchema,
  email: emailSchema,
  level: levelSchema,
  schoolName: schoolNameSchema,
  title: titleSchema.optional(),
  isActive: z.boolean().default(true),
});

export const updateUserSchema = z
  .strictObject({
    userId: idSchema,
    level: levelSchema.optional(),
    schoolName: schoolNameSchema.optional(),
    title: titleSchema.optional(),
    isActive: z.boolean().optional(),
  })
  .refine((body) => Object.keys(body).length > 1, 'nothing to update');

export const deleteUserSchema = z.strictObject({ userId: idSchema });

export const BULK_ACTIONS = ['activate', 'deactivate', 'delete', 'level_up', 'level_down'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

export const bulkActionSchema = z.strictObject({
  userIds: z.array(idSchema).min(1).max(500),
  action: z.enum(BULK_ACTIONS),
});

export const importRowSchema = z.strictObject({
  name: nameSchema,
  email: emailSchema,
  level: levelSchema,
  schoolName: schoolNameSchema,
  title: titleSchema.optional(),
});
export type ImportRow = z.infer<typeof importRowSchema>;

/** Rows are validated one by one, so one bad row is reported without refusing the others. */
export const bulkImportSchema = z.strictObject({ users: z.array(z.unknown()).min(1).max(2000) });

export const permissionsSchema = z.strictObject({
  permissions: z.strictObject(Object.fromEntries(COLLABORATION_FLAGS.map((flag) => [flag, z.boolean().optional()]))),
});

export const auditLogQuerySchema = pagingSchema.extend({
  actorId: idSchema.optional(),
  action: z.string().max(100).optional(),
  targetType: z.string().max(50).optional(),
  targetId: z.string().max(100).optional(),
  from: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
  to: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
});

export const assignedFormSchema = z.object({ formId: z.string(), permissions: z.enum(['view', 'edit']), sections: z.array(z.string()) });
export type AssignedForm = z.infer<typeof assignedFormSchema>;

/** A user as the API shows it. */
export const userSchema = z.object({
  _id: z.string(),
  name: z.string(),
  email: z.string(),
  level: z.number().int(),
  schoolName: z.string(),
  title: z.string(),
  isActive: z.boolean(),
  isDemo: z.boolean(),
  permissions: z.record(z.string(), z.boolean()),
  assignedForms: z.array(assignedFormSchema).optional(),
  /** When the user last signed in; null when never. */
  lastSignedInAt: nullableIsoTimeSchema.optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type User = z.infer<typeof userSchema>;

export const userListSchema = z.object({ users: z.array(userSchema), total: z.number().int(), page: z.number().int(), limit: z.number().int() });
export type UserList = z.infer<typeof userListSchema>;

/** Schools an administrator may filter the user list by (a principal: the own school). */
export const userSchoolsSchema = z.object({ schools: z.array(z.string()) });
export type UserSchools = z.infer<typeof userSchoolsSchema>;

/** `GET /api/users/:id/audit`: the user's own trail, paged. */
export const userAuditQuerySchema = pagingSchema;

/** Answers of the users routes the admin page reads. */
export const userWriteResponseSchema = z.object({ success: z.literal(true), user: userSchema });
export type UserWriteResponse = z.infer<typeof userWriteResponseSchema>;
export const bulkResultSchema = z.object({
  userId: z.string(),
  email: z.string().optional(),
  success: z.boolean(),
  error: z.string().optional(),
  level: z.number().int().optional(),
});
export type BulkResult = z.infer<typeof bulkResultSchema>;
export const bulkResponseSchema = z.object({
  success: z.literal(true),
  action: z.enum(BULK_ACTIONS),
  results: z.array(bulkResultSchema),
  applied: z.number().int(),
});
export type BulkResponse = z.infer<typeof bulkResponseSchema>;
export const importResultSchema = z.object({
  row: z.number().int(),
  email: z.string().nullable(),
  status: z.enum(['created', 'updated', 'error']),
  error: z.string().optional(),
});
export type ImportResult = z.infer<typeof importResultSchema>;
export const importResponseSchema = z.object({
  success: z.literal(true),
  results: z.array(importResultSchema),
  created: z.number().int(),
  updated: z.number().int(),
  errors: z.number().int(),
});
export type ImportResponse = z.infer<typeof importResponseSchema>;
