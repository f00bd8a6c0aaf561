import { LEVEL } from '@csp/shared';
import type { UserRow } from '../storage/rows.ts';

type Actor = Pick<UserRow, 'level'>;

/**
 * The district's own powers (review, delete, transfer, e-mail share, live override, rollover,
 * school years, the question bank, the audit log, reports, system health): Super Admins.
 */
export const isSuperAdmin = (actor: Actor): boolean => actor.level === LEVEL.superAdmin;

/** Creating plans: principals (for their school) and Super Admins (for any school, choosing the owner). */
export const canCreatePlans = (actor: Actor): boolean => actor.level >= LEVEL.principal;

/** Previewing the app as a demo user: the signed-in Super Admin (not the user being previewed). */
export const canPreviewAs = isSuperAdmin;
