import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.ts';
import { authOf } from '../../auth/gate.ts';
import { parse, pathId } from '../../http/validate.ts';
import type { LimitName } from '../../http/rateLimits.ts';
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
  bulkResponseSchema,
  createUserSchema,
  deleteUserSchema,
  importResponseSchema,
  listUsersQuerySchema,
  permissionsSchema,
  updateUserSchema,
  userAuditQuerySchema,
  userListSchema,
  userSchoolsSchema,
  userWriteResponseSchema,
  type BulkResponse,
  type ImportResponse,
  type UserList,
  type UserSchools,
  type UserWriteResponse,
} from '@csp/shared/api/users';
import { authorize, authorizeInput, checksFor } from '../../policy/authorize.ts';
import type { AuditLogList } from '@csp/shared/api/audit';
import { operations } from '../../http/operation.ts';
import { successSchema } from '@csp/shared/api/common';
import { auditLogListSchema } from '@csp/shared/api/audit';

const operation = operations('Users', {
  list: {
    summary: 'List users',
    description: 'Administrators (level 4 and up); a principal sees their own school.',
    query: listUsersQuerySchema,
    responses: { 200: userListSchema },
  },
  schools: { summary: 'Schools the user list can be filtered by', responses: { 200: userSchoolsSchema } },
  create: { summary: 'Create a user', body: createUserSchema, responses: { 200: userWriteResponseSchema } },
  update: { summary: 'Update a user', body: updateUserSchema, responses: { 200: userWriteResponseSchema } },
  remove: { summary: 'Delete a user', body: deleteUserSchema, responses: { 200: successSchema } },
  bulk: { summary: 'Apply one action to many users', body: bulkActionSchema, responses: { 200: bulkResponseSchema } },
  bulkImport: {
    summary: 'Import users',
    description: 'Level 5. Rows are checked one by one: a bad row is reported without refusing the others.',
    body: bulkImportSchema,
    responses: { 200: importResponseSchema },
  },
  permissions: { summary: 'Set a user’s collaboration permissions', body: permissionsSchema, responses: { 200: userWriteResponseSchema } },
  trail: { summary: 'A user’s audit trail', description: 'Level 5.', query: userAuditQuerySchema, responses: { 200: auditLogListSchema } },
  auditLog: {
    summary: 'The audit log',
    description: 'Level 5. One page of the filtered records, newest first.',
    query: auditLogQuerySchema,
    responses: { 200: auditLogListSchema },
  },
});

export function usersRoutes(services: Services): Router {
  const router = new Router({ prefix: '/users' });

  /** Counts the request against its limit, then requires the route's ability; returns the caller. */
  async function admin(ctx: Context, limit: LimitName, ability: 'administerUsers' | 'administerDistrict' = 'administerUsers'): Promise<Caller> {
    const auth = authOf(ctx);
    await services.rateLimits.consume(limit, auth.user.id);
    authorize(auth.actor, ability);
    return { auth, ip: ctx.ip };
  }

  router.get('/', operation.list, async (ctx) => {
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

  router.get('/schools', operation.schools, async (ctx) => {
    const { auth } = await admin(ctx, 'users');
    ctx.body = { schools: await listUserSchools(services, auth.actor) } satisfies UserSchools;
  });

  router.post('/create', operation.create, async (ctx) => {
    const caller = await admin(ctx, 'usersCreate');
    const input = parse(createUserSchema, ctx.request.body);
    const user = await createUser(
      services,
      caller,
      authorizeInput(caller.auth.actor, input, { createUserAtLevel: input.level, createUserForSchool: input.schoolName }),
    );
    ctx.body = { success: true, user: presentUser(user) } satisfies UserWriteResponse;
  });

  router.put('/', operation.update, async (ctx) => {
    const caller = await admin(ctx, 'usersWrite');
    const { userId, ...changes } = parse(updateUserSchema, ctx.request.body);
    ctx.body = {
      success: true,
      user: presentUser(await updateUser(services, caller, checksFor(caller.auth.actor, ['manageUser', 'giveLevel', 'moveUserToSchool']), userId, changes)),
    } satisfies UserWriteResponse;
  });

  router.delete('/', operation.remove, async (ctx) => {
    const caller = await admin(ctx, 'usersWrite');
    const { userId } = parse(deleteUserSchema, ctx.request.body);
    await deleteUser(services, caller, checksFor(caller.auth.actor, ['manageUser']), userId);
    ctx.body = { success: true };
  });

  router.post('/bulk', operation.bulk, async (ctx) => {
    const caller = await admin(ctx, 'usersBulk');
    const { userIds, action } = parse(bulkActionSchema, ctx.request.body);
    const results = await applyBulkAction(services, caller, checksFor(caller.auth.actor, ['manageUser', 'giveLevel']), userIds, action);
    ctx.body = { success: true, action, results, applied: results.filter((r) => r.success).length } satisfies BulkResponse;
  });

  router.post('/bulk-import', operation.bulkImport, async (ctx) => {
    const caller = await admin(ctx, 'usersImport', 'administerDistrict');
    const { users } = parse(bulkImportSchema, ctx.request.body);
    const results = await importUsers(services, caller, checksFor(caller.auth.actor, ['manageUser']), users);
    const count = (status: string) => results.filter((r) => r.status === status).length;
    ctx.body = { success: true, results, created: count('created'), updated: count('updated'), errors: count('error') } satisfies ImportResponse;
  });

  router.put('/:id/permissions', operation.permissions, async (ctx) => {
    const caller = await admin(ctx, 'usersWrite');
    const userId = pathId(ctx.params.id, 'User not found');
    const { permissions } = parse(permissionsSchema, ctx.request.body);
    ctx.body = {
      success: true,
      user: presentUser(await setUserPermissions(services, caller, checksFor(caller.auth.actor, ['manageUser']), userId, permissions)),
    } satisfies UserWriteResponse;
  });

  router.get('/:id/audit', operation.trail, async (ctx) => {
    await admin(ctx, 'users', 'administerDistrict');
    const userId = pathId(ctx.params.id, 'User not found');
    const query = parse(userAuditQuerySchema, ctx.query);
    const { rows, total } = await userAuditTrail(services, userId, query);
    ctx.body = { logs: rows.map(presentAuditRecord), total, page: query.page, limit: query.limit } satisfies AuditLogList;
  });

  router.get('/audit-logs', operation.auditLog, async (ctx) => {
    await admin(ctx, 'users', 'administerDistrict');
    const query = parse(auditLogQuerySchema, ctx.query);
    const { rows, total } = await queryAuditLog(services.storage.db, query);
    ctx.body = { logs: rows.map(presentAuditRecord), total, page: query.page, limit: query.limit } satisfies AuditLogList;
  });

  return router;
}
