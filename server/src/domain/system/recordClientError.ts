import type { ClientErrorReport } from '@csp/shared/api/public';
import type { DomainServices } from '../domainServices.ts';
import { clientErrors } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';

/** Keeps a browser's error report (and logs it) so a bug seen by a person reaches the developers. */
export async function recordClientError(
  { storage, logger }: DomainServices,
  report: ClientErrorReport,
  from: { ip: string; userAgent: string },
): Promise<string> {
  const id = newId();
  await storage.db.insert(clientErrors).values({
    id,
    message: report.message,
    stack: report.stack ?? null,
    url: report.url ?? null,
    userAgent: report.userAgent ?? from.userAgent.slice(0, 500),
    ip: from.ip,
  });
  logger.warn({ clientErrorId: id, message: report.message, url: report.url }, 'client error reported');
  return id;
}
