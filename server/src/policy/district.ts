import { LEVEL } from '@csp/shared';
import { rule, type Actor } from './rule.ts';

const superAdmin = (actor: Pick<Actor, 'level'>): boolean => actor.level === LEVEL.superAdmin;

/** The district's own powers, and who may start plans and administer users. */
export const districtRules = {
  /**
   * Declared by the route guard on the district's routes: rollover, school years, the question
   * bank, the audit log, reports, system health, and of one plan delete, transfer, e-mail share
   * and the archived-year override.
   */
  administerDistrict: rule((actor) => superAdmin(actor)),
  /** Previewing the app as a demo user: the signed-in Super Admin (not the user being previewed). */
  previewAs: rule((actor) => superAdmin(actor)),
  /** Principals (for their school) and Super Admins (for any school). */
  createPlans: rule((actor) => actor.level >= LEVEL.principal),
  createPlanForSchool: rule<string>(
    (actor, schoolName) => superAdmin(actor) || schoolName === actor.schoolName,
    'Principals can only create plans for their own school',
  ),
  choosePlanOwner: rule((actor) => superAdmin(actor), 'Only a Super Admin can choose the owner'),
  /** Principals (their school's users below them) and Super Admins. */
  administerUsers: rule((actor) => actor.level >= LEVEL.principal),
};
