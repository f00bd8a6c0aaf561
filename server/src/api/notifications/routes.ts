import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { authOf } from '../../auth/gate.ts';
import { parse } from '../../http/validate.ts';
import { presentNotification } from '../../presenters/comment.ts';
import { listNotifications, markNotificationRead } from '../../domain/notifications/userNotifications.ts';
import {
  markNotificationReadResponseSchema,
  markNotificationReadSchema,
  notificationListSchema,
  type MarkNotificationReadResponse,
  type NotificationList,
} from '@csp/shared/api/notifications';
import { operations } from '../../http/operation.ts';

const operation = operations('Notifications', {
  list: { summary: 'The caller’s notifications', responses: { 200: notificationListSchema } },
  markRead: { summary: 'Mark a notification read', body: markNotificationReadSchema, responses: { 200: markNotificationReadResponseSchema } },
});

/** Review pings for the signed-in user; read state is stored. */
export function notificationsRoutes(services: Services): Router {
  const router = new Router({ prefix: '/notifications' });

  router.get('/', operation.list, async (ctx) => {
    const rows = await listNotifications(services, authOf(ctx).actor);
    ctx.body = { notifications: rows.map(presentNotification), unread: rows.filter((row) => !row.readAt).length } satisfies NotificationList;
  });

  router.post('/', operation.markRead, async (ctx) => {
    const { notificationId } = parse(markNotificationReadSchema, ctx.request.body);
    const row = await markNotificationRead(services, authOf(ctx).actor, notificationId);
    ctx.body = { success: true, notification: presentNotification(row) } satisfies MarkNotificationReadResponse;
  });

  return router;
}
