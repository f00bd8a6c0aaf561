import { redirect } from '@sveltejs/kit';
import { session } from '#lib/state/session.svelte.ts';
import { adminSectionsFor } from '#lib/admin/sections.ts';

/** /admin opens the first page the person may use. */
export async function load() {
  await session.load();
  const [first] = adminSectionsFor(session.abilities);
  if (first) redirect(307, first.href);
}
