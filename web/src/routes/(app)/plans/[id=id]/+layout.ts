import { error } from '@sveltejs/kit';
import { api, ApiError } from '#lib/api/index.ts';
import { session } from '#lib/state/session.svelte.ts';

/** The plan with its pinned question bank and its year's deadlines, read once per plan visit. */
export async function load({ params, depends }) {
  depends('app:plan');
  await session.load();
  if (session.status !== 'signed-in') return { plan: null, bank: null, deadlines: [] };
  try {
    const plan = await api.plan(params.id);
    const [bank, year] = await Promise.all([api.questionBank(plan.questionBankVersion), api.schoolYear(plan.schoolYear).catch(() => null)]);
    return { plan, bank, deadlines: year?.deadlines ?? [] };
  } catch (cause) {
    if (cause instanceof ApiError) {
      if (cause.status === 403) error(403, 'You do not have access to this plan. Ask its principal to share it with you.');
      if (cause.status === 404) error(404, 'This plan does not exist. It may have been deleted.');
      if (cause.offline) error(503, 'The service cannot be reached. Check your connection and reload.');
    }
    throw cause;
  }
}
