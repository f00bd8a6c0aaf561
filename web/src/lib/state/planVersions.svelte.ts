import { VERSION_KIND_LABELS, type PlanVersionSummary, type VersionList } from '@csp/shared/api/history';
import { api } from '#lib/api/index.ts';
import { Loader } from './loader.svelte.ts';
import { fullDateTimeLabel } from '#lib/format.ts';

/** "Submitted · Nov 24, 2026, 10:42 AM", and "· Elena Rodriguez" with `actor`: how a version is named in a choice or a heading. */
export const versionLabel = (version: PlanVersionSummary, { actor = true } = {}) =>
  `${VERSION_KIND_LABELS[version.kind]} · ${fullDateTimeLabel(version.createdAt)}${actor ? ` · ${version.actorName}` : ''}`;

/** A plan's versions, newest first: read when the plan page opens and when its status moves (each move may add one). */
export class PlanVersions {
  readonly #list: Loader<VersionList>;
  readonly versions = $derived.by(() => this.#list.value?.versions ?? []);
  /** `refused`: the person may not see the versions (the page then leaves them out). */
  readonly status = $derived.by(() => {
    if (this.#list.error) return this.#list.errorStatus === 403 ? 'refused' : 'error';
    return this.#list.value ? 'ready' : 'loading';
  });
  readonly error = $derived.by(() => this.#list.error);

  constructor(formId: string) {
    this.#list = new Loader((signal) => api.versions(formId, signal), 'The versions could not be loaded.');
  }

  /** Reads the list again; the one shown stays until the answer comes. */
  async load(): Promise<void> {
    await this.#list.load();
  }

  readonly retry = (): void => void this.load();

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
    this.#list.abort();
  }
}

/** The compare page's address: `to` is a version, or the plan as it is now when unset. */
export const compareHref = (formId: string, from: string, to?: string) => `/plans/${formId}/versions/compare?from=${from}${to ? `&to=${to}` : ''}`;
