// School years and the district rollover (Super Admin): every answer parsed with its shared schema.
import { rolloverProgressResponseSchema, rolloverResultSchema } from '@csp/shared/api/admin';
import { yearListSchema, yearSettingsResponseSchema, type YearSettings } from '@csp/shared/api/schoolYears';
import { query, request } from '../client.ts';

export type Deadline = YearSettings['deadlines'][number];
export type DistrictGoal = YearSettings['districtGoals'][number];

export interface YearChanges {
  archived?: boolean;
  questionBankVersion?: number;
  deadlines?: Deadline[];
  districtGoals?: DistrictGoal[];
}

export const schoolYearsApi = {
  list: (signal?: AbortSignal) => request('GET', '/api/school-year/years', yearListSchema, undefined, signal),
  update: (schoolYear: string, changes: YearChanges) => request('PUT', '/api/school-year', yearSettingsResponseSchema, { schoolYear, ...changes }),
  setUpNext: (fromYear: string) => request('POST', '/api/school-year', yearSettingsResponseSchema, { fromYear }),
  rollover: (sourceYear: string, targetYear: string, force: boolean) =>
    request('POST', '/api/admin/forms/rollover', rolloverResultSchema, { sourceYear, targetYear, force }),
  rolloverProgress: (sourceYear: string, targetYear: string, signal?: AbortSignal) =>
    request('GET', `/api/admin/forms/rollover${query({ sourceYear, targetYear })}`, rolloverProgressResponseSchema, undefined, signal),
};
