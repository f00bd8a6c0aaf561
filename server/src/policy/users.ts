import { assignsSchool, givesLevel, managesUser, visibleUsersOf } from '@csp/shared/userRules';
import { rule, type Actor } from './rule.ts';

type Target = Pick<Actor, 'id' | 'level' | 'schoolName'>;

/**
 * What an administrator may do to one user (routes first require `administerUsers`). The rules
 * themselves live in shared/ so that the web app offers exactly what they allow.
 */
export const userRules = {
  manageUser: rule<Target>(managesUser),
  createUserAtLevel: rule<number>(givesLevel, 'You cannot create a user at that level'),
  createUserForSchool: rule<string>(assignsSchool, 'You can only create users for your own school'),
  giveLevel: rule<number>(givesLevel, 'You cannot give that level'),
  moveUserToSchool: rule<string>(assignsSchool, 'You can only assign your own school'),
};

/** The users an administrator sees, as a rule lists turn into SQL (`visibleUsersOf`). */
export { visibleUsersOf };
