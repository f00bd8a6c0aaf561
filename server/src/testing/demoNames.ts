/**
 * The demo district's schools and people (seed/demoDistrict.ts) that tests name: a test reads
 * them from here rather than spelling them out again.
 */
export const HARBOR = 'Harbor View Academy';
export const RIVERSIDE = 'Riverside Learning Center';
export const DISTRICT = 'District Office';

export const SUPERADMIN = 'superadmin@example.org';
export const PRINCIPAL_HARBOR = 'principal.harbor@example.org';
export const PRINCIPAL_RIVERSIDE = 'principal.riverside@example.org';

/**
 * Who the lock and presence tests sign in, in this order: the Harbor principal in two tabs, the
 * Super Admin, Harbor's coordinator (view only) and teacher (no access), Riverside's principal.
 */
export const STEP_CAST = [
  PRINCIPAL_HARBOR,
  PRINCIPAL_HARBOR,
  SUPERADMIN,
  'coordinator.harbor@example.org',
  'teacher.harbor@example.org',
  PRINCIPAL_RIVERSIDE,
] as const;
