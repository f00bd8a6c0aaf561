import type { HandleClientError } from '@sveltejs/kit/hooks';
import { z } from 'zod';
import { reportClientError } from '#lib/errorReport.ts';

// The Content-Security-Policy allows no eval: zod's compiled fast path would only probe for it, and
// the browser reports the probe as a violation.
z.config({ jitless: true });

// Errors outside SvelteKit's own handling (event handlers, timers, promises) are reported too.
window.addEventListener('error', (event) => reportClientError(event.error ?? event.message));
window.addEventListener('unhandledrejection', (event) => reportClientError(event.reason));

/** Errors while loading or rendering a page: unknown ones are reported, then +error.svelte offers a way back. */
export const handleError: HandleClientError = ({ kind, error }) => {
  if (kind === 'unknown') {
    reportClientError(error);
    return { message: 'Something went wrong on this page.' };
  }
};
