// The Audit log page's calls: the list route's pages, the actor search, and the CSV export.
import { auditActorListSchema, auditLogListSchema, type AuditFilter } from '@csp/shared/api/audit';
import { ApiError, query, request } from '#lib/api/client.ts';

const AUDIT_EXPORT_PATH = '/api/admin/audit-logs/export.csv';

export const auditApi = {
  /** One page of the records matching `filter`, newest first. */
  page: (filter: AuditFilter, page: number, limit: number, signal?: AbortSignal) =>
    request('GET', `/api/users/audit-logs${query({ ...filter, page, limit })}`, auditLogListSchema, undefined, signal),

  /** People in the audit log whose e-mail contains `text`. */
  actors: (text: string, signal?: AbortSignal) => request('GET', `/api/admin/audit-logs/actors${query({ q: text })}`, auditActorListSchema, undefined, signal),

  /**
   * Every record of the filtered range as a CSV file, read as the server streams it (`onRecords`
   * hears how many lines have arrived). Resolves with the file and the name the server gave it.
   */
  async exportCsv(filter: AuditFilter, onRecords: (count: number) => void, signal?: AbortSignal): Promise<{ file: Blob; fileName: string }> {
    let response: Response;
    try {
      response = await fetch(`${AUDIT_EXPORT_PATH}${query({ ...filter })}`, { credentials: 'same-origin', headers: { accept: 'text/csv' }, signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(0, 'The server could not be reached. Check your connection.');
    }
    if (!response.ok || !response.body) {
      const body: unknown = await response.json().catch(() => null);
      const error = body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : '';
      throw new ApiError(response.status, error || `The export failed (${response.status}).`, body as Record<string, unknown> | null);
    }
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    const reader = response.body.getReader();
    let lines = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      for (const byte of value) if (byte === 10) lines++;
      // The first line is the header.
      onRecords(Math.max(0, lines - 1));
    }
    const fileName = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'audit-log.csv';
    return { file: new Blob(chunks, { type: 'text/csv;charset=utf-8' }), fileName };
  },
};

/** Saves a file the browser downloads. */
export function downloadFile(fileName: string, file: Blob): void {
  const url = URL.createObjectURL(file);
  const link = Object.assign(document.createElement('a'), { href: url, download: fileName });
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked later: the download reads the object URL after the click returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
