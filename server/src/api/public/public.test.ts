/**
 * The public routes, over HTTP against a real server and without a session: the district overview
 * (its figures, and its 60-second cache in the key-value store: a second call does not query the
 * database) and the browser error sink (stored in client_errors, bounded sizes, 10 reports per
 * 5 minutes per client address, cookies never stored).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, previousSchoolYear } from '@csp/shared';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { clientErrors, plans } from '../../storage/schema.ts';
import { insertPlan } from '../../testing/factories.ts';

const CURRENT = currentSchoolYear();
const PREVIOUS = previousSchoolYear(CURRENT);

let server: TestServer;
const db = () => server.services.storage.db;

/** A client with a fixed, unique address (the random ones of HttpClient may collide within a test). */
let nextAddress = 1;
const anonymous = () => new HttpClient(server.url, `198.51.100.7, 192.0.2.${nextAddress++}`);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

describe('GET /api/public/overview', () => {
  it('answers without a session with the district’s figures, then serves them from the cache for 60 s', async () => {
    // The demo district has two schools with a draft plan each this year and a plan each last year.
    // Add plans in every status this year, and a school that only had a plan last year.
    await insertPlan(server, { schoolName: 'Lakeside School', schoolYear: CURRENT, status: 'submitted' });
    await insertPlan(server, { schoolName: 'Hilltop School', schoolYear: CURRENT, status: 'under_review' });
    await insertPlan(server, { schoolName: 'Bayview School', schoolYear: CURRENT, status: 'approved' });
    await insertPlan(server, { schoolName: 'Parkside School', schoolYear: CURRENT, status: 'rejected' });
    await insertPlan(server, { schoolName: 'Oldtown School', schoolYear: PREVIOUS, status: 'approved' });
    await insertPlan(server, { schoolName: 'Oldtown School', schoolYear: '2001-2002', status: 'submitted' });

    const client = anonymous();
    const first = await client.request('GET', '/api/public/overview');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toMatch(/max-age=60/);
    const figures = {
      currentYear: CURRENT,
      previousYear: PREVIOUS,
      sectionCount: BUNDLED_BANK.steps.length,
      schoolsServed: 7,
      currentYearPlans: 6,
      // Started: the four plans past draft; the demo's two drafts have nothing saved this year.
      startedThisYear: 4,
      submittedThisYear: 3,
    };
    expect(await first.json()).toEqual(figures);
    expect(JSON.parse((await server.services.kv.get('public:overview'))!)).toEqual(figures);

    // The data changes behind the cache: the next call (well within 60 s) still has the old figures,
    // so it did not query the database.
    await insertPlan(server, { schoolName: 'Newfield School', schoolYear: CURRENT, status: 'submitted' });
    await db().update(plans).set({ status: 'approved' }).where(eq(plans.schoolName, 'Parkside School'));
    const second = await anonymous().get('/api/public/overview');
    expect(second.status).toBe(200);
    expect(second.body).toEqual(figures);
    // Signed-in callers get the same snapshot.
    const signedIn = await signIn(server.url, 'principal.harbor@example.org');
    expect((await signedIn.get('/api/public/overview')).body).toEqual(figures);

    // Without the cached entry the figures are computed again.
    await server.services.kv.delete('public:overview');
    const third = await anonymous().get('/api/public/overview');
    expect(third.body).toEqual({ ...figures, schoolsServed: 8, currentYearPlans: 7, startedThisYear: 5, submittedThisYear: 5 });
    expect(JSON.parse((await server.services.kv.get('public:overview'))!)).toEqual(third.body);
  });
});

describe('POST /api/client-errors', () => {
  async function storedRow(id: string) {
    const [row] = await db().select().from(clientErrors).where(eq(clientErrors.id, id));
    return row;
  }

  it('stores a report without a session', async () => {
    const client = anonymous();
    const report = {
      message: 'TypeError: Cannot read properties of undefined (reading "data")',
      stack: 'TypeError: Cannot read properties of undefined\n    at StepEditor (step.svelte:42:7)',
      url: 'http://localhost:3000/plans/abc/step/6',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140',
    };
    const { status, body } = await client.post('/api/client-errors', report);
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, id: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const row = await storedRow(body.id);
    expect(row).toMatchObject({ ...report, ip: client.forwardedFor.split(',').at(-1)!.trim() });
    expect(row!.createdAt).toBeInstanceOf(Date);

    // Without a userAgent field, the request's User-Agent header is kept.
    const minimal = await client.request('POST', '/api/client-errors', { json: { message: 'Script error.' }, headers: { 'user-agent': 'TestBrowser/1.0' } });
    expect(minimal.status).toBe(200);
    expect(await storedRow(((await minimal.json()) as { id: string }).id)).toMatchObject({
      message: 'Script error.',
      stack: null,
      url: null,
      userAgent: 'TestBrowser/1.0',
    });
  });

  it('bounds sizes: a message over 2000 characters is refused, a long stack, url and user agent are clipped', async () => {
    const client = anonymous();
    const tooLong = await client.post('/api/client-errors', { message: 'x'.repeat(2001) });
    expect(tooLong.status).toBe(400);
    for (const body of [{}, { message: '' }, { message: 42 }, { message: 'ok', stack: 12 }]) {
      expect((await client.post('/api/client-errors', body)).status, JSON.stringify(body)).toBe(400);
    }
    const longest = await client.post('/api/client-errors', {
      message: 'm'.repeat(2000),
      stack: 's'.repeat(50_000),
      url: `http://localhost/${'u'.repeat(5000)}`,
      userAgent: 'a'.repeat(3000),
    });
    expect(longest.status).toBe(200);
    const row = (await storedRow(longest.body.id))!;
    expect(row.message).toHaveLength(2000);
    expect(row.stack).toHaveLength(8000);
    expect(row.url!.length).toBeLessThanOrEqual(2000);
    expect(row.userAgent!.length).toBeLessThanOrEqual(500);
    expect(
      (
        await db()
          .select({ id: clientErrors.id })
          .from(clientErrors)
          .where(eq(clientErrors.message, 'x'.repeat(2001)))
      ).length,
    ).toBe(0);
  });

  it('refuses the 11th report within 5 minutes from one client address with 429; other addresses still report', async () => {
    const client = anonymous();
    for (let report = 1; report <= 10; report++) {
      expect((await client.post('/api/client-errors', { message: `Error number ${report}` })).status, `report ${report}`).toBe(200);
    }
    const eleventh = await client.post('/api/client-errors', { message: 'Error number 11' });
    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toEqual({ error: 'Too many requests' });
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await db().select({ id: clientErrors.id }).from(clientErrors).where(eq(clientErrors.message, 'Error number 11'))).length).toBe(0);
    expect((await anonymous().post('/api/client-errors', { message: 'Another browser' })).status).toBe(200);
  });

  it('never stores cookies', async () => {
    const signedIn = await signIn(server.url, 'teacher.harbor@example.org');
    const cookie = signedIn.cookieHeader();
    expect(cookie).not.toBe('');
    const secretValue = [...signedIn.cookies.values()][0]!;
    const response = await signedIn.request('POST', '/api/client-errors', {
      json: { message: 'Error with cookies around', cookie, cookies: cookie, headers: { cookie }, url: 'http://localhost:3000/plans' },
      headers: { cookie: `${cookie}; tracking=secret-tracking-value` },
    });
    expect(response.status).toBe(200);
    const id = ((await response.json()) as { id: string }).id;
    const row = (await storedRow(id))!;
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(secretValue);
    expect(stored).not.toContain('secret-tracking-value');
    expect(Object.keys(row).sort()).toEqual(['createdAt', 'id', 'ip', 'message', 'stack', 'url', 'userAgent']);
  });
});
