import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { AUDIT_CSV_COLUMNS, auditLogListSchema, type AuditRecord } from '@csp/shared/api/audit';
import { adminHealthSchema } from '@csp/shared/api/health';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll, sessionToken } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { SESSION_COOKIE } from '../server/src/auth/sessions.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';
import { connectRealtime, type RealtimeClient } from '../server/src/testing/realtime.ts';
import { openLiveClient, type LiveClient } from '../server/src/testing/collab.ts';
import { HARBOR } from '../server/src/testing/demoNames.ts';
import { formIdOf } from '../server/src/testing/plans.ts';
import { waitFor } from '../server/src/testing/wait.ts';
import { startOwnRedis, type OwnRedis } from '../server/src/testing/ownRedis.ts';
import { parseCsv } from '../server/src/testing/csv.ts';
import { auditCsvRow } from '../server/src/testing/audit.ts';

/**
 * The Audit log and System admin pages in real Chromium: a Super Admin finds a question-bank
 * publish (made through the real API) by action and dates, pages through a longer range, and exports
 * the filtered range as CSV matching the API; the System page shows the database, Redis (embedded:
 * not configured, in-process), the realtime and collaboration servers with live figures, and the
 * version; principals get the admin layout's refusal and no audit rows; axe-core and 320 px.
 */
const ADMIN = 'superadmin@example.org';
const PRINCIPAL = 'principal.harbor@example.org';
const EDITS = 30;

let server: TestServer;
let browser: Browser;
let adminApi: HttpClient;
let principalApi: HttpClient;
let publishedVersion: number;
const people: Person[] = [];
const sockets: RealtimeClient[] = [];
const live: LiveClient[] = [];

/** A calendar day in this machine's time zone (the browser's too), `offset` days from today. */
function localDay(offset: number): string {
  const day = new Date();
  day.setDate(day.getDate() + offset);
  return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
}
const YESTERDAY = localDay(-1);
const TOMORROW = localDay(1);
/** The page's promise: dates are whole days in the reader's time zone. */
const RANGE = { from: new Date(`${YESTERDAY}T00:00:00`).toISOString(), to: new Date(`${TOMORROW}T23:59:59.999`).toISOString() };

/** Every record matching `filter`, read page by page through the list route. */
async function listAll(filter: Record<string, string>): Promise<AuditRecord[]> {
  const all: AuditRecord[] = [];
  for (let page = 1; ; page++) {
    const { status, body } = await adminApi.get(`/api/users/audit-logs?${new URLSearchParams({ ...filter, page: String(page), limit: '200' })}`);
    expect(status).toBe(200);
    const list = auditLogListSchema.parse(body);
    all.push(...list.logs);
    if (all.length >= list.total) return all;
  }
}

const records = (page: Page) => page.getByRole('region', { name: 'Audit records, newest first' });
const recordRows = (page: Page) =>
  records(page)
    .getByRole('row')
    .filter({ has: page.getByRole('cell') });
const pager = (page: Page) => page.getByRole('navigation', { name: 'Pages of audit records' });

async function filterBy(page: Page, fields: { action?: string; from?: string; to?: string; perPage?: string }) {
  if (fields.action !== undefined) await page.getByRole('combobox', { name: 'Action' }).fill(fields.action);
  if (fields.from !== undefined) await page.getByLabel('From (date)').fill(fields.from);
  if (fields.to !== undefined) await page.getByLabel('To (date, included)').fill(fields.to);
  if (fields.perPage !== undefined) await page.getByRole('combobox', { name: 'Records per page' }).selectOption(fields.perPage);
  await page.getByRole('button', { name: 'Apply filters' }).click();
}

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  [adminApi, principalApi] = await signInAll(server.url, [ADMIN, PRINCIPAL] as const);
  // Real question-bank work: draft edits, each one audit record, then the publish.
  for (let edit = 1; edit <= EDITS; edit++) {
    const response = await adminApi.put('/api/admin/question-bank/questions/att_barriers', { title: `Which barriers did you find? (wording ${edit})` });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  }
  const published = await adminApi.post('/api/admin/question-bank/publish', {});
  expect(published.status, JSON.stringify(published.body)).toBe(200);
  publishedVersion = published.body.version;
  expect(typeof publishedVersion).toBe('number');
  // Something the principal did: the school's plan assigned to someone.
  const formId = await formIdOf(principalApi, HARBOR);
  const assigned = await principalApi.put(`/api/forms/${formId}`, { action: 'update', assignedTo: 'coordinator@example.org' });
  expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  for (const client of live) client.destroy();
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('the Audit log page', () => {
  it('lets a Super Admin find the question-bank publish by action and date range, in a view the address keeps', async () => {
    const admin = await signInAs(browser, server.url, ADMIN, '/admin/audit-log');
    people.push(admin);
    const { page } = admin;
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.getByRole('link', { name: 'Audit log', exact: true }).and(page.locator('[aria-current="page"]')).waitFor();
    await recordRows(page).first().waitFor();

    await filterBy(page, { action: 'questionBank.publish', from: YESTERDAY, to: TOMORROW });
    await page.waitForURL((url) => url.searchParams.get('action') === 'questionBank.publish' && url.searchParams.get('from') === YESTERDAY);
    await pager(page).getByText('1–1 of 1 audit records').waitFor();
    const row = recordRows(page);
    expect(await row.count()).toBe(1);
    await row.getByRole('cell', { name: `questionBank.publish on questionBank: Question bank ${publishedVersion}`, exact: true }).waitFor();
    // The actor by name and e-mail.
    await row.getByRole('cell', { name: ADMIN }).waitFor();

    // The API agrees, for the same filter.
    const expected = await listAll({ action: 'questionBank.publish', ...RANGE });
    expect(expected.map((log) => log.targetId)).toEqual([String(publishedVersion)]);

    // A day range that ends before today finds nothing; the address brings the filtered view back.
    await filterBy(page, { from: localDay(-5), to: localDay(-2) });
    await records(page).getByText('No audit records match these filters.').waitFor();
    await page.goBack();
    await pager(page).getByText('1–1 of 1 audit records').waitFor();
    await page.reload();
    await recordRows(page)
      .getByRole('cell', { name: `questionBank.publish on questionBank: Question bank ${publishedVersion}`, exact: true })
      .waitFor();
    expect(await page.getByRole('combobox', { name: 'Action' }).inputValue()).toBe('questionBank.publish');
    await expectAccessible(page, 'the audit log filtered to the publish');
    expect(admin.errors).toEqual([]);
  });

  it('finds what one person did by their e-mail, and says when nobody with that e-mail acted', async () => {
    const { page } = people[0]!;
    await page.goto(`${server.url}/admin/audit-log`);
    const actor = page.getByRole('combobox', { name: 'Actor e-mail' });
    await actor.fill('nobody.here@example.org');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Nobody with the e-mail nobody.here@example.org appears in the audit log.', { exact: false }).waitFor();
    expect(await actor.getAttribute('aria-invalid')).toBe('true');

    await actor.fill(PRINCIPAL);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('actor') === PRINCIPAL && /^[0-9a-f]{24}$/.test(url.searchParams.get('actorId') ?? ''));
    const actorId = new URL(page.url()).searchParams.get('actorId')!;
    const expected = await listAll({ actorId });
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.every((log) => log.actorEmail === PRINCIPAL)).toBe(true);
    await pager(page).getByText(`1–${expected.length} of ${expected.length} audit records`).waitFor();
    await recordRows(page)
      .getByRole('cell', { name: /^plan\.update on plan: Harbor View Academy / })
      .first()
      .waitFor();
    expect(await recordRows(page).getByRole('cell', { name: ADMIN }).count()).toBe(0);
  });

  it('refuses an end date before the start date without asking the server', async () => {
    const { page } = people[0]!;
    const before = page.url();
    await filterBy(page, { from: TOMORROW, to: YESTERDAY });
    await page.getByText('The start date is after the end date.').waitFor();
    expect(page.url()).toBe(before);
    await expectAccessible(page, 'the audit log with a refused range');

    // An address edited by hand: the server's reason, and a way back.
    await page.goto(`${server.url}/admin/audit-log?from=last-week`);
    const alert = page.getByRole('alert').filter({ hasText: 'from' });
    await alert.waitFor();
    expect(await records(page).count()).toBe(0);
    await alert.getByRole('link', { name: 'Clear the filters' }).click();
    await page.waitForURL((url) => url.search === '');
    await recordRows(page).first().waitFor();
  });

  it('pages through a longer range on the server and exports every record of it as CSV matching the API', async () => {
    const { page } = people[0]!;
    await page.goto(`${server.url}/admin/audit-log`);
    await filterBy(page, { action: 'questionBank.question.update', from: YESTERDAY, to: TOMORROW, perPage: '25' });
    const expected = await listAll({ action: 'questionBank.question.update', ...RANGE });
    expect(expected).toHaveLength(EDITS);

    await pager(page).getByText(`1–25 of ${EDITS} audit records`).waitFor();
    expect(await recordRows(page).count()).toBe(25);
    await recordRows(page).first().getByText(`wording ${EDITS}`).first().waitFor();
    await pager(page).getByRole('button', { name: 'Next page' }).click();
    await pager(page).getByText(`26–${EDITS} of ${EDITS} audit records`).waitFor();
    await page.waitForURL((url) => url.searchParams.get('page') === '2');
    await waitFor('the second page’s rows', async () => (await recordRows(page).count()) === EDITS - 25);
    // Newest first: the last page holds the first edits.
    await recordRows(page).last().getByText('wording 1)').first().waitFor();
    expect(await pager(page).getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await expectAccessible(page, 'the audit log’s second page');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Export ${EDITS} records as CSV` }).click()]);
    expect(download.suggestedFilename()).toMatch(/^audit-log_.+\.csv$/);
    const text = fs.readFileSync((await download.path())!, 'utf8');
    await page.getByText(`Exported ${EDITS} records to ${download.suggestedFilename()}.`).waitFor();
    const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''), { whole: true });
    expect(header).toEqual([...AUDIT_CSV_COLUMNS]);
    // Every record of the range (not one page), in the list's order, each cell as the API has it.
    expect(rows).toEqual(expected.map(auditCsvRow));
    expect(JSON.parse(rows.at(-1)![6]!).after.title).toBe('Which barriers did you find? (wording 1)');
    expect(people[0]!.errors).toEqual([]);
  });

  it('gives a principal the layout’s refusal and never asks for audit records', async () => {
    const principal = await signInAs(browser, server.url, PRINCIPAL, '/dashboard');
    people.push(principal);
    const { page } = principal;
    const asked: string[] = [];
    page.on('request', (request) => {
      if (/\/api\/(users\/audit-logs|admin\/audit-logs|admin\/health)/.test(request.url())) asked.push(request.url());
    });
    for (const path of ['/admin/audit-log', '/admin/system']) {
      await page.goto(`${server.url}${path}?action=questionBank.publish`);
      await page.getByRole('heading', { level: 1, name: 'Not available to you' }).waitFor();
      await page.getByRole('link', { name: 'Back to your dashboard' }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.getByRole('region', { name: 'Audit records, newest first' }).count()).toBe(0);
      expect(await page.getByText('questionBank.publish').count()).toBe(0);
    }
    expect(asked).toEqual([]);
    // The server refuses it too.
    expect((await principalApi.get('/api/users/audit-logs')).status).toBe(403);
    expect((await principalApi.get('/api/admin/audit-logs/export.csv')).status).toBe(403);
    expect(principal.errors).toEqual([]);
  });
});

describe('the System page', () => {
  it('shows the database, Redis (embedded: not configured, in-process), realtime, collaboration and the version', async () => {
    const admin = people[0]!;
    const { page } = admin;
    await page.goto(`${server.url}/admin/system`);
    await page.getByRole('heading', { level: 1, name: 'System' }).waitFor();
    const health = adminHealthSchema.parse((await adminApi.get('/api/admin/health')).body);
    const root = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(health.version).toBe(root.version);

    await page.getByText('All parts are working.').waitFor();
    const part = (name: string) => page.getByRole('region', { name, exact: true });
    await part('Database').getByText('OK', { exact: true }).waitFor();
    await part('Database')
      .getByText(health.store === 'pglite' ? 'PGlite (embedded in the server)' : 'PostgreSQL')
      .waitFor();
    if (health.redis === 'not configured') {
      await part('Redis').getByText('Not configured (in-process)').waitFor();
      await part('Redis')
        .getByText(/Not configured \/ in-process/)
        .waitFor();
    } else {
      await part('Redis').getByText('OK', { exact: true }).waitFor();
    }
    await part('Realtime').getByText('OK', { exact: true }).waitFor();
    await part('Collaboration').getByText('OK', { exact: true }).waitFor();
    await part('Version').getByText(`Version ${root.version}`).waitFor();
    await part('Version').getByText(health.process.node).waitFor();
    await expectAccessible(page, 'the System page');

    // Someone new joins live (every signed-in page already holds a socket for its notifications, so a
    // person with no page open); Refresh (nothing polls) shows the new figures.
    const [coordinatorApi] = await signInAll(server.url, ['coordinator.harbor@example.org'] as const);
    sockets.push(await connectRealtime(server.url, coordinatorApi.cookies.get(SESSION_COOKIE)!, { label: 'coordinator' }));
    const formId = await formIdOf(principalApi, HARBOR);
    live.push(await openLiveClient(server.url, sessionToken(principalApi), formId, 'attendancePlan', { label: 'principal editing' }));
    const now = adminHealthSchema.parse((await adminApi.get('/api/admin/health')).body);
    expect(now.realtime!.users).toBeGreaterThan(health.realtime!.users);
    expect(now.collaboration).toMatchObject({ documents: 1, connections: 1 });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await part('Realtime')
      .getByText(`${now.realtime!.users} ${now.realtime!.users === 1 ? 'person' : 'people'} connected`)
      .waitFor();
    await part('Realtime')
      .getByText(`${now.realtime!.connections} open socket${now.realtime!.connections === 1 ? '' : 's'}`)
      .waitFor();
    await part('Collaboration').getByText('1 step document', { exact: true }).waitFor();
    await part('Collaboration').getByText('1 editor connection', { exact: true }).waitFor();
    expect(admin.errors).toEqual([]);
  });
});

describe('the System page when Redis goes down', () => {
  let redis: OwnRedis | undefined;
  let withRedis: TestServer | undefined;
  afterAll(async () => {
    await withRedis?.stop();
    await redis?.kill();
  });

  it('shows Redis shared by every process, then, after Refresh, which parts are degraded and why', async () => {
    // A real outage: a redis-server of this test's own, killed while the server runs.
    redis = await startOwnRedis();
    withRedis = await startTestServer({ REDIS_URL: redis.url });
    const admin = await signInAs(browser, withRedis.url, ADMIN, '/admin/system');
    people.push(admin);
    const { page } = admin;
    const part = (name: string) => page.getByRole('region', { name, exact: true });
    await page.getByText('All parts are working.').waitFor();
    await part('Redis').getByText('OK', { exact: true }).waitFor();
    await part('Realtime').getByText('Every server process, through Redis').waitFor();
    await part('Collaboration').getByText('Every server process, through Redis').waitFor();

    await redis.kill();
    // The public probe answers 503 now; the page shows it when asked (nothing polls).
    await waitFor('the public probe to report the outage', async () => (await fetch(`${withRedis!.url}/api/health`)).status === 503);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByText(/Degraded: Redis, realtime, collaboration are not working/).waitFor();
    await part('Redis').getByText('Not answering', { exact: true }).waitFor();
    await part('Redis')
      .getByText(/Redis does not answer/)
      .waitFor();
    await part('Database').getByText('OK', { exact: true }).waitFor();
    await part('Realtime').getByText('Degraded', { exact: true }).waitFor();
    await part('Collaboration').getByText('Degraded', { exact: true }).waitFor();
    await expectAccessible(page, 'the System page with Redis down');
    expect(admin.errors).toEqual([]);
  });
});

describe('at 320 px wide', () => {
  it('both pages fit the screen (only the table scrolls sideways, in its own frame) and pass axe-core', async () => {
    const phone = await signInAs(browser, server.url, ADMIN, '/admin/system', { width: 320, height: 700 });
    people.push(phone);
    const { page } = phone;
    for (const path of ['/admin/audit-log?action=questionBank.question.update&limit=25', '/admin/system']) {
      await page.goto(`${server.url}${path}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      if (path.startsWith('/admin/audit-log')) await recordRows(page).first().waitFor();
      else await page.getByText('All parts are working.').waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${path} is ${width} px wide`).toBeLessThanOrEqual(320);
      await expectAccessible(page, `${path} at 320 px`);
    }
    // The table scrolls inside its frame, which a keyboard can reach.
    await page.goto(`${server.url}/admin/audit-log?action=questionBank.question.update&limit=25`);
    const frame = page.getByRole('region', { name: 'Audit records, newest first' });
    await recordRows(page).first().waitFor();
    expect(await frame.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    expect(await frame.getAttribute('tabindex')).toBe('0');
    expect(phone.errors).toEqual([]);
  });
});
