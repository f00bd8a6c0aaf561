import { z } from 'zod';
import { COLLABORATION_FLAGS } from '../roles.ts';
import { emailSchema, idSchema, levelSchema, pagingSchema, schoolNameSchema } from './common.ts';

const nameSchema = z.string().trim().min(1).max(200);
const titleSchema = z.string().trim().max(200);

export const listUsersQuerySchema = pagingSchema.extend({
  schoolName: z.string().max(200).optional(),
  q: z.string().max(200).optional(),
});

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
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type User = z.infer<typeof userSchema>;

export const userListSchema = z.object({ users: z.array(userSchema), total: z.number().int(), page: z.number().int(), limit: z.number().int() });
export type UserList = z.infer<typeof userListSchema>;
