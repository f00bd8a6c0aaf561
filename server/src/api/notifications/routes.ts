import Router from '@koa/router';
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { authOf } from '../../auth/gate.ts';
import { notFound } from '../../errors.ts';
import { parse } from '../../http/validate.ts';
import { notifications } from '../../storage/schema.ts';
import { presentNotification } from '../../presenters/comment.ts';
import { markNotificationReadSchema, type NotificationList } from '@csp/shared/api/notifications';

/** Review pings for the signed-in user; read state is stored. */
export function notificationsRoutes({ storage }: Services): Router {
  const router = new Router({ prefix: '/notifications' });

  router.get('/', async (ctx) => {
    const user = authOf(ctx).actor;
    const rows = await storage.db.select().from(notifications).where(eq(notifications.userId, user.id)).orderBy(desc(notifications.createdAt)).limit(100);
    ctx.body = { notifications: rows.map(presentNotification), unread: rows.filter((row) => !row.readAt).length } satisfies NotificationList;
  });

  router.post('/', async (ctx) => {
    const user = authOf(ctx).actor;
    const { notificationId } = parse(markNotificationReadSchema, ctx.request.body);
    const mine = and(eq(notifications.id, notificationId), eq(notifications.userId, user.id));
    await storage.db
      .update(notifications)
      .set({ readAt: new Date() })
      .where(and(mine, isNull(notifications.readAt)));
    const [row] = await storage.db.select().from(notifications).where(mine).limit(1);
    if (!row) throw notFound('Notification not found');
    ctx.body = { success: true, notification: presentNotification(row) };
  });

  return router;
}
