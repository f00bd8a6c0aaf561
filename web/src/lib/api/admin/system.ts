// The System page's calls: the Super Admin health view, and the public probe when that view fails.
import { adminHealthSchema, healthSchema, type Health } from '@csp/shared/api/health';
import { ApiError, request } from '#lib/api/client.ts';

export const systemApi = {
  adminHealth: (signal?: AbortSignal) => request('GET', '/api/admin/health', adminHealthSchema, undefined, signal),

  /** The public probe: answers 503 with the same body when degraded, which is a result here, not a failure. */
  async health(signal?: AbortSignal): Promise<Health> {
    try {
      return await request('GET', '/api/health', healthSchema, undefined, signal);
    } catch (error) {
      if (error instanceof ApiError && error.status === 503) {
        const degraded = healthSchema.safeParse(error.body);
        if (degraded.success) return degraded.data;
      }
      throw error;
    }
  },
};
