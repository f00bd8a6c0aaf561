// The admin Users page's calls: every answer is parsed with the shared zod schemas.
import { successSchema } from '@csp/shared/api/common';
import { lightPlanListSchema } from '@csp/shared/api/forms';
import { shareResponseSchema, unshareResponseSchema } from '@csp/shared/api/admin';
import { auditLogListSchema } from '@csp/shared/api/audit';
import {
  bulkResponseSchema,
  importResponseSchema,
  userListSchema,
  userSchoolsSchema,
  userWriteResponseSchema,
  type BulkAction,
  type UserSort,
} from '@csp/shared/api/users';
import type { CollaborationFlag } from '@csp/shared/roles';
import { query, request } from '../client.ts';

export interface UserFilters {
  q?: string | undefined;
  schoolName?: string | undefined;
  level?: number | undefined;
  active?: boolean | undefined;
  neverSignedIn?: boolean | undefined;
  sort?: UserSort | undefined;
  order?: 'asc' | 'desc' | undefined;
  page: number;
  limit: number;
}

export interface NewUser {
  name: string;
  email: string;
  level: number;
  schoolName: string;
  title?: string;
  isActive: boolean;
}

export interface UserChanges {
  level?: number;
  schoolName?: string;
  title?: string;
  isActive?: boolean;
}

export const usersApi = {
  list: (filters: UserFilters, signal?: AbortSignal) => request('GET', `/api/users${query({ ...filters })}`, userListSchema, undefined, signal),
  schools: (signal?: AbortSignal) => request('GET', '/api/users/schools', userSchoolsSchema, undefined, signal),
  create: (user: NewUser) => request('POST', '/api/users/create', userWriteResponseSchema, user),
  update: (userId: string, changes: UserChanges) => request('PUT', '/api/users', userWriteResponseSchema, { userId, ...changes }),
  remove: (userId: string) => request('DELETE', '/api/users', successSchema, { userId }),
  bulk: (userIds: string[], action: BulkAction) => request('POST', '/api/users/bulk', bulkResponseSchema, { userIds, action }),
  import: (users: Record<string, unknown>[]) => request('POST', '/api/users/bulk-import', importResponseSchema, { users }),
  setPermissions: (userId: string, permissions: Partial<Record<CollaborationFlag, boolean>>) =>
    request('PUT', `/api/users/${userId}/permissions`, userWriteResponseSchema, { permissions }),
  /** The user's own trail: changes to the user, and bulk actions and imports that touched the user. */
  userTrail: (userId: string, paging: { page: number; limit: number }, signal?: AbortSignal) =>
    request('GET', `/api/users/${userId}/audit${query(paging)}`, auditLogListSchema, undefined, signal),
  /** Audit records by a filter of the audit-log route (here: what a user did, by `actorId`). */
  auditTrail: (filter: { targetId?: string; actorId?: string; page: number; limit: number }, signal?: AbortSignal) =>
    request('GET', `/api/users/audit-logs${query({ targetType: filter.targetId ? 'user' : undefined, ...filter })}`, auditLogListSchema, undefined, signal),
  /** Plans the caller can see (a Super Admin: the district's; a principal: the own school's), to share with a user. */
  plans: (signal?: AbortSignal) => request('GET', `/api/forms${query({ limit: 200, view: 'light' })}`, lightPlanListSchema, undefined, signal),
  share: (formId: string, userId: string, permissions: 'view' | 'edit') =>
    request('POST', '/api/admin/forms/share', shareResponseSchema, { formId, userIds: [userId], permissions, sections: [] }),
  unshare: (formId: string, userId: string) => request('DELETE', '/api/admin/forms/share', unshareResponseSchema, { formId, userIds: [userId] }),
};
