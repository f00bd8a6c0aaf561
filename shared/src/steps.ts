/** The fallback step order; a published question bank's order wins when there is one. */
export const DEFAULT_STEP_KEYS = [
  'tableOfContents',
  'childAbuseIntervention',
  'sexualHarassment',
  'respectForAll',
  'suicidePrevention',
  'attendancePlan',
  'temporaryHousing',
  'serviceInSchools',
  'planningInterviews',
  'militaryRecruitment',
  'schoolCulture',
  'afterSchoolPrograms',
  'cellPhonePolicy',
  'counselingPlan',
] as const;

export type DefaultStepKey = (typeof DEFAULT_STEP_KEYS)[number];

/** Never a required step, never counted in completion. */
export const PRINCIPAL_LETTER_KEY = 'principalLetter';

/** The steps district reports and compare look at by default. */
export const COMPARE_STEP_KEYS = ['attendancePlan', 'temporaryHousing', 'counselingPlan'] as const;

export const STEP_KEY_PATTERN = /^[a-zA-Z][a-zA-Z0-9]{0,63}$/;
