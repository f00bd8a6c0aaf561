import { session } from '#lib/state/session.svelte.ts';

// Pure single-page app: nothing is rendered or prerendered on a server. adapter-static writes
// one fallback shell (build/index.html) and the Koa server answers every deep link with it.
export const ssr = false;
export const prerender = false;

/** The session is read once, when the app starts. */
export async function load() {
  await session.load();
  return {};
}
