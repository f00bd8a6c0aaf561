import type { AssignedForm, User } from '@csp/shared/api/users';
import type { UserRow } from '../storage/rows.ts';

/** A user as the API shows it: never sessions or internal flags beyond `isDemo`. */
export function presentUser(user: UserRow, assignedForms?: AssignedForm[]): User {
  return {
    _id: user.id,
    name: user.name,
    email: user.email,
    level: user.level,
    schoolName: user.schoolName,
    title: user.title ?? '',
    isActive: user.isActive,
    isDemo: user.isDemo,
    permissions: user.permissions,
    ...(assignedForms ? { assignedForms } : {}),
    lastSignedInAt: user.lastSignedInAt?.toISOString() ?? null,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}
