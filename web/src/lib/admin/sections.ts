import type { SessionAbilities } from '@csp/shared/api/auth';

export interface AdminSection {
  href: string;
  label: string;
  /** Who may use it: the server's ability for the routes the page calls. */
  ability: keyof SessionAbilities;
}

/** The admin area's pages, in navigation order (principals manage their own school's people). */
export const ADMIN_SECTIONS: readonly AdminSection[] = [
  { href: '/admin/plans', label: 'Plans', ability: 'administerDistrict' },
  { href: '/admin/users', label: 'Users', ability: 'administerUsers' },
  { href: '/admin/school-years', label: 'School years', ability: 'administerDistrict' },
  { href: '/admin/question-bank', label: 'Question bank', ability: 'administerDistrict' },
  { href: '/admin/audit-log', label: 'Audit log', ability: 'administerDistrict' },
  { href: '/admin/system', label: 'System', ability: 'administerDistrict' },
];

export const adminSectionsFor = (abilities: SessionAbilities): AdminSection[] => ADMIN_SECTIONS.filter((section) => abilities[section.ability]);
