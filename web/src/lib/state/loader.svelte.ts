import { ApiError } from '#lib/api/client.ts';

/**
 * One read a page or panel shows: its answer, whether it is under way, the reason it failed and a
 * way to try again. A new load aborts the one under way, so an answer never lands on a view that
 * asked for something else. `value` stays until a newer answer replaces it, unless `clear` says
 * the view shows none while loading (`Loader.load({ clear: true })`).
 */
export class Loader<T> {
  value = $state.raw<T | null>(null);
  loading = $state(false);
  /** Why the last read failed: the server's own reason, else `failure`; '' when it did not. */
  error = $state('');
  /** The HTTP status of that failure (0: the server could not be reached), for views that treat a refusal apart. */
  errorStatus = $state<number | null>(null);

  readonly #read: (signal: AbortSignal) => Promise<T>;
  readonly #failure: string;
  #controller: AbortController | null = null;

  /** `failure` is what a person reads when the read fails without a reason from the server. */
  constructor(read: (signal: AbortSignal) => Promise<T>, failure: string) {
    this.#read = read;
    this.#failure = failure;
  }

  /** Reads again; resolves to the answer, or null when it failed or a newer load replaced it. */
  async load({ clear = false } = {}): Promise<T | null> {
    this.#controller?.abort();
    const controller = (this.#controller = new AbortController());
    const { signal } = controller;
    if (clear) this.value = null;
    this.loading = true;
    this.error = '';
    this.errorStatus = null;
    try {
      const value = await this.#read(signal);
      if (signal.aborted) return null;
      this.value = value;
      return value;
    } catch (cause) {
      if (signal.aborted) return null;
      this.error = cause instanceof ApiError ? cause.message : this.#failure;
      this.errorStatus = cause instanceof ApiError ? cause.status : null;
      return null;
    } finally {
      if (!signal.aborted) this.loading = false;
    }
  }

  /**
   * For `$effect(() => loader.follow())`: loads now, again whenever the reactive values the read
   * uses before its first await change (an address, a filter), and stops with the component.
   */
  follow({ clear = true } = {}): () => void {
    void this.load({ clear });
    return () => this.abort();
  }

  /** Try again after a failure (the error card's button). */
  readonly retry = (): void => void this.load();

  abort(): void {
    this.#controller?.abort();
    this.#controller = null;
  }
}
