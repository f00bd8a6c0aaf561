import type { AuditFilter } from '@csp/shared/api/audit';
import { ApiError } from '#lib/api/client.ts';
import { auditApi, downloadFile } from '#lib/api/admin/audit.ts';

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
