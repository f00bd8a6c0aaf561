import type { AdminHealth, Health } from '@csp/shared/api/health';
import { ApiError } from '#lib/api/client.ts';
import { systemApi } from '#lib/api/admin/system.ts';

/**
 * The System page's reading of the server's health, loaded when the page opens and when the
 * person asks again (nothing polls). When the full view fails (it needs the database for the
 * session), the public probe still tells which part is down.
 */
export class SystemHealth {
  full = $state<AdminHealth | null>(null);
  /** The public probe's answer, when only it answered. */
  probe = $state<Health | null>(null);
  /** Why the full view could not be read. */
  error = $state('');
  loading = $state(false);
  /** When the figures shown were read (milliseconds since 1970; 0 before the first reading). */
  checkedAt = $state(0);

  private controller: AbortController | null = null;

  async load(): Promise<void> {
    this.controller?.abort();
    const controller = (this.controller = new AbortController());
    this.loading = true;
    try {
      this.full = await systemApi.adminHealth(controller.signal);
      this.probe = null;
      this.error = '';
    } catch (error) {
      if (controller.signal.aborted) return;
      this.full = null;
      this.error = error instanceof ApiError ? error.message : 'The server’s health could not be read.';
      this.probe = await systemApi.health(controller.signal).catch(() => null);
    } finally {
      if (!controller.signal.aborted) {
        this.loading = false;
        this.checkedAt = Date.now();
      }
    }
  }

  destroy(): void {
    this.controller?.abort();
  }
}
