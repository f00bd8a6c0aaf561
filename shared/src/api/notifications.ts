import { z } from 'zod';
import { idSchema } from './common.ts';

export const markNotificationReadSchema = z.strictObject({ notificationId: idSchema });

export const notificationSchema = z.object({
  _id: z.string(),
  formId: z.string().nullable(),
  kind: z.string(),
  message: z.string(),
  /** Where it happened in the web app (a path), when it happened somewhere. */
  link: z.string().nullable(),
  createdAt: z.string(),
  readAt: z.string().nullable(),
});
export type Notification = z.infer<typeof notificationSchema>;
export const notificationListSchema = z.object({ notifications: z.array(notificationSchema), unread: z.number().int() });
export type NotificationList = z.infer<typeof notificationListSchema>;

/** POST /api/notifications: the notification, now read. */
export const markNotificationReadResponseSchema = z.object({ success: z.literal(true), notification: notificationSchema });
export type MarkNotificationReadResponse = z.infer<typeof markNotificationReadResponseSchema>;
