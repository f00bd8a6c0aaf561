import { VERSION_KIND_LABELS, type PlanVersionSummary } from '@csp/shared/api/history';
import { api, ApiError } from '#lib/api/index.ts';
import { fullDateTimeLabel } from '#lib/format.ts';

/** "Submitted · Nov 24, 2026, 10:42 AM", and "· Elena Rodriguez" with `actor`: how a version is named in a choice or a heading. */
export const versionLabel = (version: PlanVersionSummary, { actor = true } = {}) =>
  `${VERSION_KIND_LABELS[version.kind]} · ${fullDateTimeLabel(version.createdAt)}${actor ? ` · ${version.actorName}` : ''}`;

/** A plan's versions, newest first: read when the plan page opens and when its status moves (each move may add one). */
export class PlanVersions {
  versions = $state.raw<PlanVersionSummary[]>([]);
  /** `refused`: the person may not see the versions (the page then leaves them out). */
  status = $state<'loading' | 'ready' | 'error' | 'refused'>('loading');
  error = $state('');
  #controller = new AbortController();
  readonly #formId: string;

  constructor(formId: string) {
    this.#formId = formId;
  }

  async load(): Promise<void> {
    this.#controller.abort();
    this.#controller = new AbortController();
    const { signal } = this.#controller;
    if (this.status !== 'ready') this.status = 'loading';
    try {
      this.versions = (await api.versions(this.#formId, signal)).versions;
      this.status = 'ready';
      this.error = '';
    } catch (cause) {
      if (signal.aborted) return;
      this.error = cause instanceof ApiError ? cause.message : 'The versions could not be loaded.';
      this.status = cause instanceof ApiError && cause.status === 403 ? 'refused' : 'error';
    }
  }

  /**
   * What a reviewer compares: the latest submission and the submission or return before it, when
   * there is one (the plan came back to the district after changes).
   */
  readonly sinceLastSubmission = $derived.by(() => {
    const latest = this.versions.findIndex((version) => version.kind === 'submitted');
    if (latest < 0) return null;
    const previous = this.versions.slice(latest + 1).find((version) => version.kind === 'submitted' || version.kind === 'returned');
    return previous ? { from: previous, to: this.versions[latest]! } : null;
  });

  destroy(): void {
    this.#controller.abort();
  }
}

/** The compare page's address: `to` is a version, or the plan as it is now when unset. */
export const compareHref = (formId: string, from: string, to?: string) => `/plans/${formId}/versions/compare?from=${from}${to ? `&to=${to}` : ''}`;
