import { systemApi } from '#lib/api/admin/system.ts';
import { Loader } from './loader.svelte.ts';

/**
 * The System page's reading of the server's health, loaded when the page opens and when the
 * person asks again (nothing polls). When the full view fails (it needs the database for the
 * session), the public probe still tells which part is down.
 */
export class SystemHealth {
  readonly #full = new Loader((signal) => systemApi.adminHealth(signal), 'The server’s health could not be read.');
  readonly #probe = new Loader((signal) => systemApi.health(signal), 'The server could not be reached.');

  readonly full = $derived.by(() => (this.#full.error ? null : this.#full.value));
  /** The public probe's answer, when only it answered. */
  readonly probe = $derived.by(() => (this.#full.error && !this.#probe.error ? this.#probe.value : null));
  /** Why the full view could not be read. */
  readonly error = $derived.by(() => this.#full.error);
  readonly loading = $derived.by(() => this.#full.loading || this.#probe.loading);
  /** When the figures shown were read (milliseconds since 1970; 0 before the first reading). */
  checkedAt = $state(0);

  async load(): Promise<void> {
    this.#probe.abort();
    const full = await this.#full.load();
    // Null without an error: a newer reading took over.
    if (!full && !this.#full.error) return;
    if (!full && !(await this.#probe.load()) && !this.#probe.error) return;
    this.checkedAt = Date.now();
  }

  destroy(): void {
    this.#full.abort();
    this.#probe.abort();
  }
}
