import type { RolloverProgress, RolloverResult } from '@csp/shared/api/admin';
import { rolloverEventSchema } from '@csp/shared/api/realtime';
import { schoolYearsApi } from '#lib/api/admin/schoolYears.ts';
import { realtime } from '#lib/realtime/socket.svelte.ts';
import { PendingAction } from '#lib/state/action.svelte.ts';
import { Loader } from '#lib/state/loader.svelte.ts';

/** Now as an ISO timestamp (a plain string, nothing reactive). */
const isoNow = (): string => new Date(Date.now()).toISOString();

/**
 * The district rollover as this tab sees it: progress pushed by the gateway (`rollover` events to
 * the person who started it, wherever they started it), read once from the progress route when
 * the page opens or the live connection comes back, and the full report once the run answers.
 */
export class RolloverRun {
  progress = $state<RolloverProgress | null>(null);
  result = $state<RolloverResult | null>(null);
  readonly starting = new PendingAction();
  readonly #unsubscribe: () => void;
  /** The pairs of years the next progress read asks about. */
  #pairs: readonly (readonly [sourceYear: string, targetYear: string])[] = [];
  /** Pairs without a rollover (404) or unreachable are passed over, so this read never fails as a whole. */
  readonly #progress = new Loader(
    (signal) => Promise.all(this.#pairs.map(([from, into]) => schoolYearsApi.rolloverProgress(from, into, signal).catch(() => null))),
    'The rollover could not be read.',
  );

  constructor() {
    this.#unsubscribe = realtime.on('rollover', rolloverEventSchema, ({ progress }) => this.#take(progress));
  }

  get running(): boolean {
    return this.starting.busy || this.progress?.state === 'running';
  }

  /** A newer report of the same run replaces the one shown; a report belongs to one finished run, so a new run hides it. */
  #take(progress: RolloverProgress): void {
    const shown = this.progress;
    if (shown && shown.sourceYear === progress.sourceYear && shown.targetYear === progress.targetYear && shown.updatedAt > progress.updatedAt) return;
    const result = this.result;
    if (result && (progress.state === 'running' || result.sourceYear !== progress.sourceYear || result.targetYear !== progress.targetYear)) this.result = null;
    this.progress = progress;
  }

  /**
   * The rollovers the server still keeps (24 h) between these pairs of years: a running one, else the
   * latest, with its report when it finished. Pairs without one (404) or unreachable are passed over.
   */
  async read(pairs: readonly (readonly [sourceYear: string, targetYear: string])[]): Promise<void> {
    this.#pairs = pairs;
    const found = await this.#progress.load();
    const kept = (found ?? []).filter((entry) => entry !== null);
    const latest = kept.find((entry) => entry.progress.state === 'running') ?? kept.sort((a, b) => b.progress.updatedAt.localeCompare(a.progress.updatedAt))[0];
    if (!latest) return;
    this.#take(latest.progress);
    const shown = this.progress;
    const result = latest.result;
    if (result && shown?.state === 'done' && shown.sourceYear === result.sourceYear && shown.targetYear === result.targetYear) this.result = result;
  }

  /** Starts the rollover and waits for its report; false with `starting.error` when it was refused. */
  async start(sourceYear: string, targetYear: string, force: boolean): Promise<boolean> {
    this.result = null;
    return this.starting.run(async () => {
      const result = await schoolYearsApi.rollover(sourceYear, targetYear, force);
      // The server's final figures first (a late event is older and is ignored); without them, the report's own.
      await this.read([[sourceYear, targetYear]]);
      if (this.progress?.state !== 'done' || this.progress.sourceYear !== sourceYear || this.progress.targetYear !== targetYear) {
        this.progress = {
          state: 'done',
          sourceYear,
          targetYear,
          total: result.considered,
          processed: result.considered,
          created: result.created.length,
          skipped: result.skipped.length,
          filled: result.filled.length,
          errors: result.errors.length,
          updatedAt: isoNow(),
        };
      }
      this.result = result;
    }, 'The rollover could not be started.');
  }

  destroy(): void {
    this.#unsubscribe();
    this.#progress.abort();
  }
}
