/**
 * Reports the app's own uncaught errors to the public client-error sink (message, page, stack;
 * never answers or form contents), at most a few per page so a loop cannot flood it.
 */
let sent = 0;
const MAX_REPORTS = 5;

export function reportClientError(error: unknown): void {
  if (sent >= MAX_REPORTS) return;
  sent++;
  const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 2000) || 'Unknown error';
  const body = {
    message,
    stack: error instanceof Error ? error.stack : undefined,
    url: location.origin + location.pathname,
    userAgent: navigator.userAgent,
  };
  void fetch('/api/client-errors', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), keepalive: true }).catch(
    () => {},
  );
}
