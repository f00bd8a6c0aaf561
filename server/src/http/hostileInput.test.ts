import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import { eq } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../testing/testServer.ts';
import { signInAll } from '../testing/signIn.ts';
import { HttpClient } from '../testing/httpClient.ts';
import { plans, schoolYearSettings } from '../storage/schema.ts';
import { apiRouter } from './app.ts';
import { MAX_INPUT_DEPTH } from './validate.ts';

/**
 * A hostile client against every route of the API: bodies nested far past any real payload,
 * bodies whose Content-Encoding lies, methods no route takes, headers over the size limit and
 * school-year labels at the edges. The answer is always a 4xx that says what is wrong, never a 500
 * or a dropped connection, and nothing changes.
 */
let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
let formId: string;

interface Route {
  path: string;
  methods: string[];
}
let routes: Route[];

/** A concrete path for a route pattern: ids of real records where the route names one. */
function concrete(pattern: string): string {
  return pattern
    .replace(':stepNumber', '1')
    .replace(':stepKey', 'attendancePlan')
    .replace(':questionId', 'att_barriers')
    .replace(':id', formId)
    .replace(/:[a-zA-Z]+/g, 'a'.repeat(24));
}

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

beforeAll(async () => {
  server = await startTestServer();
  [admin, principal] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org'] as const);
  formId = (await principal.get('/api/forms')).body.forms[0]._id;
  const router = apiRouter(server.services, { oidc: undefined as never });
  const byPath = new Map<string, Set<string>>();
  for (const layer of router.stack) {
    const methods = layer.methods.filter((method) => method !== 'HEAD');
    if (methods.length === 0 || typeof layer.path !== 'string') continue;
    const known = byPath.get(layer.path) ?? new Set<string>();
    for (const method of methods) known.add(method);
    byPath.set(layer.path, known);
  }
  routes = [...byPath].map(([path, methods]) => ({ path, methods: [...methods] }));
});
afterAll(() => server?.stop());

const isClientError = (status: number) => status >= 400 && status < 500;

describe('hostile input never gets a 500', () => {
  it('enumerates the API (the checks below cover every route)', () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.some((route) => route.path === '/api/forms/:id/step/:stepNumber' && route.methods.includes('PUT'))).toBe(true);
  });

  it('refuses JSON nested far deeper than any payload on every route that reads a body, with 400', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      for (const method of route.methods.filter((candidate) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(candidate))) {
        for (const body of [deepArray(100_000), deepObject(150_000), deepArray(MAX_INPUT_DEPTH + 1)]) {
          const response = await admin.request(method, concrete(route.path), { body, headers: { 'content-type': 'application/json' } });
          if (!isClientError(response.status)) failures.push(`${method} ${route.path}: ${response.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // On a route that reads the body, the nesting itself is the refusal.
    const step = await admin.request('PUT', `/api/forms/${formId}/step/1`, { body: deepObject(150_000), headers: { 'content-type': 'application/json' } });
    expect(step.status).toBe(400);
    expect(((await step.json()) as { error: string }).error).toMatch(/nested more than 64 levels/);
  });

  it('refuses step answers nested 8,000 deep with 400 and stores nothing', async () => {
    const before = (await admin.get(`/api/forms/${formId}/step/6`)).body.revisionCount;
    const body = `{"stepData":{"data":{"att_barriers":${deepArray(8_000)}}}}`;
    const response = await admin.request('PUT', `/api/forms/${formId}/step/6`, { body, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect((await admin.get(`/api/forms/${formId}/step/6`)).body.revisionCount).toBe(before);
  });

  it('answers a body whose Content-Encoding is not what it says with 400, and an anonymous one on a protected route with 401', async () => {
    const failures: string[] = [];
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const headers = { 'content-type': 'application/json', 'content-encoding': encoding };
      for (const route of routes) {
        for (const method of route.methods.filter((candidate) => ['POST', 'PUT', 'DELETE'].includes(candidate))) {
          const response = await admin.request(method, concrete(route.path), { body: '{"not":"compressed"}', headers });
          if (!isClientError(response.status)) failures.push(`${encoding} ${method} ${route.path}: ${response.status}`);
        }
      }
      const signedIn = await admin.request('POST', '/api/forms', { body: '{"schoolName":"X"}', headers });
      expect(signedIn.status, encoding).toBe(400);
      expect(((await signedIn.json()) as { error: string }).error).toMatch(/could not be read/);
      const anonymous = await new HttpClient(server.url).request('POST', '/api/forms', { body: 'garbage', headers });
      expect(anonymous.status, encoding).toBe(401);
    }
    expect(failures).toEqual([]);
  });

  it('answers a method no route takes with 405 and Allow on a known path, 404 elsewhere; one HTTP does not know with 400', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      // Node's parser refuses a method it does not know (FOO) before the app sees it: 400, with an answer.
      const unknown = await admin.request('FOO', concrete(route.path));
      if (unknown.status !== 400) failures.push(`FOO ${route.path}: ${unknown.status}`);
      for (const method of ['PROPFIND', 'PATCH', 'MKCOL']) {
        if (route.methods.includes(method)) continue;
        const response = await admin.request(method, concrete(route.path));
        const allow = response.headers.get('allow') ?? '';
        if (response.status !== 405 || !route.methods.every((known) => allow.includes(known)))
          failures.push(`${method} ${route.path}: ${response.status} Allow: ${allow}`);
      }
    }
    expect(failures).toEqual([]);
    expect((await admin.request('PROPFIND', '/api/no-such-route')).status).toBe(404);
  });

  it('answers headers over the size limit (a 20 kB cookie) with 431 instead of dropping the connection', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write(`GET /api/forms HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: big=${'x'.repeat(20_000)}\r\n\r\n`);
      });
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('"error"');
  });

  it('keeps an idle keep-alive connection open longer than clients keep theirs, so a reused connection is never reset', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const request = http.get(`${server.url}/api/public/overview`, { agent }, (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode ?? 0, reused: request.reusedSocket }));
        });
        request.on('error', reject);
      });
    expect(await get()).toEqual({ status: 200, reused: false });
    // Node's default keep-alive timeout is 5 s: past it, the server closed the idle socket.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(await get()).toEqual({ status: 200, reused: true });
    agent.destroy();
  });
});

describe('school-year labels at the edges', () => {
  const edges = ['9999-9999', '0000-0000', '2026-2028', '1899-1900', '3000-3001', '2026-2025'];

  it('refuses labels outside 1900-1901 … 2999-3000 wherever a label comes in, with 400, changing nothing', async () => {
    const failures: string[] = [];
    const plansBefore = await server.services.storage.db.select().from(plans);
    for (const year of edges) {
      const attempts: [HttpClient, string, string, unknown?][] = [
        [principal, 'GET', `/api/school-year?schoolYear=${year}`],
        [principal, 'GET', `/api/forms?schoolYear=${year}`],
        [principal, 'POST', '/api/forms', { schoolName: 'Harbor View Academy', schoolYear: year }],
        [principal, 'POST', `/api/forms/${formId}/duplicate`, { schoolYear: year }],
        [principal, 'GET', `/api/forms/${formId}/compare?compareYear=${year}`],
        [principal, 'GET', `/api/question-bank?schoolYear=${year}`],
        [admin, 'POST', '/api/school-year', { fromYear: year }],
        [admin, 'PUT', '/api/school-year', { schoolYear: year, archived: true }],
        [admin, 'POST', '/api/admin/forms/rollover', { sourceYear: year, targetYear: '2030-2031' }],
        [admin, 'POST', '/api/admin/forms/rollover', { sourceYear: '2030-2031', targetYear: year }],
      ];
      for (const [client, method, path, body] of attempts) {
        const response = await client.request(method, path, body === undefined ? {} : { json: body });
        if (response.status !== 400) failures.push(`${year} ${method} ${path}: ${response.status}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await server.services.storage.db.select().from(plans)).toEqual(plansBefore);
    expect((await principal.get('/api/school-year')).status).toBe(200);
  });

  it('stays whole with a stray label stored before labels were checked, and a Super Admin can remove it', async () => {
    const db = server.services.storage.db;
    await db.insert(schoolYearSettings).values({ schoolYear: '9999-9999', termStart: '9999-07-01', termEnd: '9999-06-30' });
    expect((await principal.get('/api/school-year')).status).toBe(200);
    expect((await principal.get('/api/school-year')).body.cycle.latestYear).not.toBe('9999-9999');
    const nextYear = await admin.post('/api/school-year', {});
    expect([200, 409]).toContain(nextYear.status);

    expect((await principal.delete('/api/school-year', { schoolYear: '9999-9999' })).status).toBe(403);
    expect((await admin.delete('/api/school-year', { schoolYear: '9999-9999' })).status).toBe(200);
    expect(await db.select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, '9999-9999'))).toEqual([]);
    expect((await admin.delete('/api/school-year', { schoolYear: '9999-9999' })).status).toBe(404);
    const current = (await principal.get('/api/forms')).body.forms[0].schoolYear;
    const used = await admin.delete('/api/school-year', { schoolYear: current });
    expect(used.status).toBe(409);
    expect(used.body.planCount).toBeGreaterThan(0);
  });
});
