import type { User } from '@csp/shared/api/users';

export interface AdminSection {
  href: string;
  label: string;
  /** Who may use it: the server's rule for the routes the page calls. */
  allows: (user: Pick<User, 'level'>) => boolean;
}

const superAdmin = (user: Pick<User, 'level'>) => user.level === 5;

/** The admin area's pages, in navigation order (principals manage their own school's people). */
export const ADMIN_SECTIONS: readonly AdminSection[] = [
  { href: '/admin/plans', label: 'Plans', allows: superAdmin },
  { href: '/admin/users', label: 'Users', allows: (user) => user.level >= 4 },
  { href: '/admin/school-years', label: 'School years', allows: superAdmin },
  { href: '/admin/question-bank', label: 'Question bank', allows: superAdmin },
  { href: '/admin/audit-log', label: 'Audit log', allows: superAdmin },
  { href: '/admin/system', label: 'System', allows: superAdmin },
];

export const adminSectionsFor = (user: Pick<User, 'level'> | null | undefined): AdminSection[] =>
  user ? ADMIN_SECTIONS.filter((section) => section.allows(user)) : [];
