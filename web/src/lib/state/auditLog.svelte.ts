import type { AuditFilter, AuditRecord } from '@csp/shared/api/audit';
import { ApiError } from '#lib/api/client.ts';
import { auditApi, downloadFile } from '#lib/api/admin/audit.ts';

/** One page of the audit log as the server pages it: the page is loaded again whenever the view changes. */
export class AuditLogPage {
  rows = $state<AuditRecord[]>([]);
  total = $state(0);
  loading = $state(false);
  loaded = $state(false);
  error = $state('');

  private controller: AbortController | null = null;

  async load(filter: AuditFilter, page: number, limit: number): Promise<void> {
    this.controller?.abort();
    const controller = (this.controller = new AbortController());
    this.loading = true;
    this.error = '';
    try {
      const list = await auditApi.page(filter, page, limit, controller.signal);
      this.rows = list.logs;
      this.total = list.total;
      this.loaded = true;
    } catch (error) {
      if (controller.signal.aborted) return;
      this.rows = [];
      this.total = 0;
      this.error = error instanceof ApiError ? error.message : 'The audit log could not be loaded.';
    } finally {
      if (!controller.signal.aborted) this.loading = false;
    }
  }

  destroy(): void {
    this.controller?.abort();
  }
}

/** The CSV export of a filtered range: how far it is, a way to stop it, and the reason when it fails. */
export class AuditExport {
  busy = $state(false);
  received = $state(0);
  error = $state('');
  done = $state('');

  private controller: AbortController | null = null;

  async run(filter: AuditFilter): Promise<void> {
    if (this.busy) return;
    const controller = (this.controller = new AbortController());
    this.busy = true;
    this.received = 0;
    this.error = '';
    this.done = '';
    try {
      const { file, fileName } = await auditApi.exportCsv(filter, (count) => (this.received = count), controller.signal);
      downloadFile(fileName, file);
      this.done = `Exported ${this.received.toLocaleString('en-US')} ${this.received === 1 ? 'record' : 'records'} to ${fileName}.`;
    } catch (error) {
      if (controller.signal.aborted) this.done = 'Export cancelled.';
      else this.error = error instanceof ApiError ? error.message : 'The export stopped part way. Try again.';
    } finally {
      this.busy = false;
      this.controller = null;
    }
  }

  cancel(): void {
    this.controller?.abort();
  }
}
