// The admin plans table's calls: the filtered, sorted, paged plan list and the row actions.
import { successSchema } from '@csp/shared/api/common';
import { emailShareResponseSchema, lightPlanListSchema, transferResponseSchema, type ListFormsQuery } from '@csp/shared/api/forms';
import { liveResponseSchema } from '@csp/shared/api/admin';
import { query, request } from '../client.ts';

export const adminPlans = {
  list: (filters: ListFormsQuery, signal?: AbortSignal) =>
    request('GET', `/api/forms${query({ ...filters, view: 'light' })}`, lightPlanListSchema, undefined, signal),
  transfer: (formId: string, newOwnerEmail: string) => request('POST', '/api/forms/transfer-ownership', transferResponseSchema, { formId, newOwnerEmail }),
  emailShare: (formId: string, sharedWithEmails: string[]) => request('POST', `/api/forms/${formId}/share`, emailShareResponseSchema, { sharedWithEmails }),
  setLive: (formId: string, live: boolean) => request('POST', '/api/admin/forms/live', liveResponseSchema, { formId, live }),
  remove: (formId: string) => request('DELETE', `/api/forms/${formId}`, successSchema),
};
