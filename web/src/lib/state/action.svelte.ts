import { ApiError } from '#lib/api/index.ts';

/**
 * One action a person starts from a form or dialog: busy while it runs (the button says so and
 * refuses a second click), and the server's own reason when it fails.
 */
export class PendingAction {
  busy = $state(false);
  error = $state('');

  /** Runs `work`; on failure keeps the reason in `error` (or `fallback` when there is none) and returns false. */
  async run(work: () => Promise<void>, fallback: string): Promise<boolean> {
    this.busy = true;
    this.error = '';
    try {
      await work();
      return true;
    } catch (cause) {
      this.error = cause instanceof ApiError ? cause.message : fallback;
      return false;
    } finally {
      this.busy = false;
    }
  }

  /** A problem found before anything is sent (an empty required field). */
  refuse(reason: string): void {
    this.error = reason;
  }
}
