import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.ts';
import { authOf } from '../../auth/gate.ts';
import { forbidden } from '../../errors.ts';
import { parse, pathId } from '../../http/validate.ts';
import type { LimitName } from '../../http/rateLimits.ts';
import { canAdministerUsers } from '../../policy/users.ts';
import { presentUser } from '../../presenters/user.ts';
import { presentAuditRecord } from '../../presenters/audit.ts';
import type { Caller } from '../../domain/audit/recordAudit.ts';
import { queryAuditLog } from '../../domain/audit/queryAuditLog.ts';
import { listUserSchools, listUsers } from '../../domain/users/listUsers.ts';
import { createUser } from '../../domain/users/createUser.ts';
import { updateUser } from '../../domain/users/updateUser.ts';
import { deleteUser } from '../../domain/users/deleteUser.ts';
import { applyBulkAction } from '../../domain/users/applyBulkAction.ts';
import { importUsers } from '../../domain/users/importUsers.ts';
import { setUserPermissions } from '../../domain/users/setUserPermissions.ts';
import { userAuditTrail } from '../../domain/users/userAuditTrail.ts';
import {
  auditLogQuerySchema,
  bulkActionSchema,
  bulkImportSchema,
  createUserSchema,
  deleteUserSchema,
  listUsersQuerySchema,
  permissionsSchema,
  userAuditQuerySchema,
  updateUserSchema,
  type BulkResponse,
  type ImportResponse,
  type UserList,
  type UserWriteResponse,
  type UserSchools,
} from '@csp/shared/api/users';
import type { AuditLogList } from '@csp/shared/api/audit';

export function usersRoutes(services: Services): Router {
  const router = new Router({ prefix: '/users' });

  /** Counts the request against its limit, then requires the level; returns the caller. */
  async function admin(ctx: Context, limit: LimitName, minLevel: 4 | 5 = 4): Promise<Caller> {
    const auth = authOf(ctx);
    await services.rateLimits.consume(limit, auth.user.id);
    if (!canAdministerUsers(auth.actor) || auth.actor.level < minLevel) throw forbidden();
    return { auth, ip: ctx.ip };
  }

  router.get('/', async (ctx) => {
    const { auth } = await admin(ctx, 'users');
    const query = parse(listUsersQuerySchema, ctx.query);
    const listing = await listUsers(services, auth.actor, query);
    ctx.body = {
      users: listing.users.map(({ user, assignedForms }) => presentUser(user, assignedForms)),
      total: listing.total,
      page: query.page,
      limit: query.limit,
    } satisfies UserList;
  });

  router.get('/schools', async (ctx) => {
    const { auth } = await admin(ctx, 'users');
    ctx.body = { schools: await listUserSchools(services, auth.actor) } satisfies UserSchools;
  });

  router.post('/create', async (ctx) => {
    const caller = await admin(ctx, 'usersCreate');
    const user = await createUser(services, caller, parse(createUserSchema, ctx.request.body));
    ctx.body = { success: true, user: presentUser(user) } satisfies UserWriteResponse;
  });

  router.put('/', async (ctx) => {
    const caller = await admin(ctx, 'usersWrite');
    const { userId, ...changes } = parse(updateUserSchema, ctx.request.body);
    ctx.body = { success: true, user: presentUser(await updateUser(services, caller, userId, changes)) } satisfies UserWriteResponse;
  });

  router.delete('/', async (ctx) => {
    const caller = await admin(ctx, 'usersWrite');
    const { userId } = parse(deleteUserSchema, ctx.request.body);
    await deleteUser(services, caller, userId);
    ctx.body = { success: true };
  });

  router.post('/bulk', async (ctx) => {
    const caller = await admin(ctx, 'usersBulk');
    const { userIds, action } = parse(bulkActionSchema, ctx.request.body);
    const results = await applyBulkAction(services, caller, userIds, action);
    ctx.body = { success: true, action, results, applied: results.filter((r) => r.success).length } satisfies BulkResponse;
  });

  router.post('/bulk-import', async (ctx) => {
    const caller = await admin(ctx, 'usersImport', 5);
    const { users } = parse(bulkImportSchema, ctx.request.body);
    const results = await importUsers(services, caller, users);
    const count = (status: string) => results.filter((r) => r.status === status).length;
    ctx.body = { success: true, results, created: count('created'), updated: count('updated'), errors: count('error') } satisfies ImportResponse;
  });

  router.put('/:id/permissions', async (ctx) => {
    const caller = await admin(ctx, 'usersWrite');
    const userId = pathId(ctx.params.id, 'User not found');
    const { permissions } = parse(permissionsSchema, ctx.request.body);
    ctx.body = { success: true, user: presentUser(await setUserPermissions(services, caller, userId, permissions)) } satisfies UserWriteResponse;
  });

  router.get('/:id/audit', async (ctx) => {
    await admin(ctx, 'users', 5);
    const userId = pathId(ctx.params.id, 'User not found');
    const query = parse(userAuditQuerySchema, ctx.query);
    const { rows, total } = await userAuditTrail(services, userId, query);
    ctx.body = { logs: rows.map(presentAuditRecord), total, page: query.page, limit: query.limit } satisfies AuditLogList;
  });

  router.get('/audit-logs', async (ctx) => {
    await admin(ctx, 'users', 5);
    const query = parse(auditLogQuerySchema, ctx.query);
    const { rows, total } = await queryAuditLog(services.storage.db, query);
    ctx.body = { logs: rows.map(presentAuditRecord), total, page: query.page, limit: query.limit } satisfies AuditLogList;
  });

  return router;
}
