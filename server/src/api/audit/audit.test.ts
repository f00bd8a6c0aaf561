/**
 * The Audit log page's server routes against a real server: the CSV export of a filtered range
 * (exactly the records the list route pages through for the same filter, in its order; every cell
 * quoted, quotes doubled, line breaks kept inside cells, formula-looking text kept as text; read in
 * batches by keyset, so records sharing a timestamp are neither skipped nor repeated), the search
 * for an actor by e-mail, and their refusals (bad filters 400, other roles 403, no session 401).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { AUDIT_CSV_COLUMNS, auditActorListSchema, auditLogListSchema, type AuditRecord } from '@csp/shared/api/audit';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { auditLogs } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { auditLogCsv } from '../../domain/audit/auditLogCsv.ts';
import { parseCsv } from '../../testing/csv.ts';
import { auditCsvRow } from '../../testing/audit.ts';

let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
const db = () => server.services.storage.db;

/** Every record of a filter, read page by page through the list route. */
async function listAll(filter: Record<string, string>, limit = 7): Promise<AuditRecord[]> {
  const all: AuditRecord[] = [];
  for (let page = 1; ; page++) {
    const { status, body } = await admin.get(`/api/users/audit-logs?${new URLSearchParams({ ...filter, page: String(page), limit: String(limit) })}`);
    expect(status, JSON.stringify(body)).toBe(200);
    const list = auditLogListSchema.parse(body);
    expect(list).toEqual(body);
    all.push(...list.logs);
    if (list.logs.length < limit) return all;
  }
}

async function exportCsv(filter: Record<string, string>, client = admin) {
  const response = await client.request('GET', `/api/admin/audit-logs/export.csv?${new URLSearchParams(filter)}`);
  // (Response.text() would drop the byte-order mark the export starts with.)
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, text };
}

const ACTOR = newId();
const NASTY_EMAIL = 'o"brien,jr@example.org';
const SAME_TIME = new Date('2031-03-04T05:06:07.123Z');
const TAG = 'auditTest.csv';

beforeAll(async () => {
  server = await startTestServer();
  [admin, principal] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org']);
  // Records a real action would not write in one go: awkward text, many at the very same instant.
  await db()
    .insert(auditLogs)
    .values([
      {
        id: newId(),
        actorId: ACTOR,
        actorEmail: NASTY_EMAIL,
        action: TAG,
        targetType: 'plan',
        targetId: '=HYPERLINK("http://evil")',
        summary: { note: 'line one\nline two, with "quotes"', formula: '+1+1', accents: 'Ñandú École' },
        ip: '203.0.113.9',
        createdAt: new Date('2031-03-05T00:00:00Z'),
      },
      ...Array.from({ length: 11 }, (_, index) => ({
        id: newId(),
        actorId: ACTOR,
        actorEmail: NASTY_EMAIL,
        action: TAG,
        targetType: 'user',
        targetId: `t${index}`,
        summary: { index },
        ip: null,
        createdAt: SAME_TIME,
      })),
    ]);
});
afterAll(() => server?.stop());

describe('GET /api/admin/audit-logs/export.csv', () => {
  it('holds exactly the records the list route pages through for the same filter, in its order, properly escaped', async () => {
    const filter = { action: TAG, from: '2031-03-01', to: '2031-03-05' };
    const expected = await listAll(filter);
    expect(expected).toHaveLength(12);
    const { status, headers, text } = await exportCsv(filter);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(headers.get('content-disposition')).toBe('attachment; filename="audit-log_2031-03-01_to_2031-03-05.csv"');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const [header, ...rows] = parseCsv(text.slice(1), { whole: true });
    expect(header).toEqual([...AUDIT_CSV_COLUMNS]);
    const neutralised = (cell: string) => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell);
    expect(rows).toEqual(expected.map((log) => auditCsvRow(log).map(neutralised)));

    const awkward = rows.find((row) => row[4] === 'plan')!;
    expect(awkward[1]).toBe(NASTY_EMAIL);
    expect(awkward[5]).toBe(`'=HYPERLINK("http://evil")`);
    expect(JSON.parse(awkward[6]!)).toEqual({ note: 'line one\nline two, with "quotes"', formula: '+1+1', accents: 'Ñandú École' });
  });

  it('filters like the list route: by actor, target, and a range whose bare end date includes that whole day', async () => {
    // (Exports count against the export limit, 10 a minute: a few filters, each telling.)
    for (const [filter, count] of [
      [{ actorId: ACTOR, targetType: 'user' }, 11],
      [{ targetId: 't3' }, 1],
      [{ action: TAG, to: '2031-03-04' }, 11],
      [{ action: TAG, from: '2031-03-04T05:06:07.124Z' }, 1],
    ] as const) {
      const { status, text } = await exportCsv(filter);
      expect(status).toBe(200);
      const rows = parseCsv(text.slice(1), { whole: true }).slice(1);
      expect(rows, JSON.stringify(filter)).toHaveLength(count);
      expect(rows).toEqual((await listAll(filter)).map((log) => auditCsvRow(log).map((cell) => (/^[=+\-@]/.test(cell) ? `'${cell}` : cell))));
    }
  });

  it('reads a large range in batches without skipping or repeating records that share a timestamp', async () => {
    let text = '';
    let chunks = 0;
    for await (const chunk of auditLogCsv(db(), { action: TAG }, 4)) {
      text += chunk;
      chunks++;
    }
    // Header, then 12 records in batches of 4 (the last batch is full, so one more empty read).
    expect(chunks).toBe(4);
    const ids = parseCsv(text.slice(1), { whole: true })
      .slice(1)
      .map((row) => row[8]);
    const stored = await db().select({ id: auditLogs.id }).from(auditLogs).where(eq(auditLogs.action, TAG));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(stored.map((row) => row.id).sort());
  });

  it('exports an empty range as the header alone', async () => {
    const { status, text } = await exportCsv({ action: 'no.such.action' });
    expect(status).toBe(200);
    expect(parseCsv(text.slice(1), { whole: true })).toEqual([[...AUDIT_CSV_COLUMNS]]);
  });

  it('refuses bad filters with 400 JSON naming the field', async () => {
    for (const [filter, field] of [
      [{ from: '2031-03-05', to: '2031-03-01' }, 'from'],
      [{ from: 'yesterday' }, 'from'],
      [{ to: '2031-02-30x' }, 'to'],
      [{ actorId: 'not-an-id' }, 'actorId'],
      [{ action: 'x'.repeat(101) }, 'action'],
    ] as const) {
      const response = await admin.get(`/api/admin/audit-logs/export.csv?${new URLSearchParams(filter)}`);
      expect(response.status, JSON.stringify(filter)).toBe(400);
      expect(response.body.error).toContain(field);
    }
  });

  it('is for Super Admins only', async () => {
    const refused = await exportCsv({}, principal);
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain(TAG);
    expect((await exportCsv({}, new HttpClient(server.url))).status).toBe(401);
  });
});

describe('GET /api/admin/audit-logs/actors', () => {
  it('finds people in the audit log by part of their e-mail, with their record counts', async () => {
    const { status, body } = await admin.get(`/api/admin/audit-logs/actors?q=${encodeURIComponent('"BRIEN')}`);
    expect(status).toBe(200);
    expect(auditActorListSchema.parse(body)).toEqual(body);
    expect(body.actors).toEqual([{ actorId: ACTOR, actorEmail: NASTY_EMAIL, records: 12 }]);
  });

  it('takes % and _ as plain characters', async () => {
    expect((await admin.get('/api/admin/audit-logs/actors?q=%25')).body.actors).toEqual([]);
    expect((await admin.get('/api/admin/audit-logs/actors?q=_')).body.actors).toEqual([]);
  });

  it('refuses an over-long search, other roles and anonymous callers', async () => {
    const long = await admin.get(`/api/admin/audit-logs/actors?q=${'a'.repeat(255)}`);
    expect(long.status).toBe(400);
    expect(long.body.error).toContain('q');
    expect((await principal.get('/api/admin/audit-logs/actors?q=a')).status).toBe(403);
    expect((await new HttpClient(server.url).get('/api/admin/audit-logs/actors?q=a')).status).toBe(401);
  });
});
