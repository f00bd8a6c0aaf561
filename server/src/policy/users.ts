import { LEVEL, type Level } from '@csp/shared';
import { isSuperAdmin } from './district.ts';
import type { UserRow } from '../storage/rows.ts';

type Actor = Pick<UserRow, 'id' | 'level' | 'schoolName'>;
type Target = Pick<UserRow, 'id' | 'level' | 'schoolName'>;

/** Principals and Super Admins administer users. */
export function canAdministerUsers(actor: Actor): boolean {
  return actor.level >= 4;
}

/**
 * The users an administrator sees, as a rule lists turn into SQL: everyone for a Super Admin
 * (`null`), else the own school below level 5.
 */
export function visibleUsersOf(actor: Actor): { schoolName: string; belowLevel: number } | null {
  return isSuperAdmin(actor) ? null : { schoolName: actor.schoolName, belowLevel: LEVEL.superAdmin };
}

/**
 * Update and delete (`canManageTarget`): never oneself, only strictly lower levels, and a principal
 * only levels 1 to 3 of the principal's own school.
 */
export function canManageTarget(actor: Actor, target: Target): boolean {
  if (actor.id === target.id) return false;
  if (actor.level <= target.level) return false;
  if (actor.level === 5) return true;
  return actor.level === 4 && target.level <= 3 && target.schoolName === actor.schoolName;
}

/** The levels an administrator may give (by create, update or bulk): a principal 1 to 3, a Super Admin any. */
export function canAssignLevel(actor: Actor, level: number): level is Level {
  if (actor.level === 5) return level >= 1 && level <= 5;
  return actor.level === 4 && level >= 1 && level <= 3;
}

/** A principal keeps users in the principal's own school. */
export function canAssignSchool(actor: Actor, schoolName: string): boolean {
  return actor.level === 5 || schoolName === actor.schoolName;
}
