import { and, desc, eq, isNull } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { notFound } from '../../errors.ts';
import { notifications } from '../../storage/schema.ts';
import type { NotificationRow, UserRow } from '../../storage/rows.ts';

/** A user's latest notifications (the newest hundred), newest first. */
export function listNotifications({ storage }: DomainServices, user: UserRow): Promise<NotificationRow[]> {
  return storage.db.select().from(notifications).where(eq(notifications.userId, user.id)).orderBy(desc(notifications.createdAt)).limit(100);
}

/** Marks one of the user's notifications read (once: the first read time is kept). */
export async function markNotificationRead({ storage }: DomainServices, user: UserRow, notificationId: string): Promise<NotificationRow> {
  const mine = and(eq(notifications.id, notificationId), eq(notifications.userId, user.id));
  await storage.db
    .update(notifications)
    .set({ readAt: new Date() })
    .where(and(mine, isNull(notifications.readAt)));
  const [row] = await storage.db.select().from(notifications).where(mine).limit(1);
  if (!row) throw notFound('Notification not found');
  return row;
}
