import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/testServer.ts';
import { HttpClient } from '../testing/httpClient.ts';

let server: TestServer;
let client: HttpClient;

beforeAll(async () => {
  server = await startTestServer();
  client = new HttpClient(server.url);
});
afterAll(() => server?.stop());

describe('HTTP foundation', () => {
  it('reports health of the database and the shared store', async () => {
    const { status, body } = await client.get('/api/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', database: 'ok', redis: process.env.REDIS_URL ? 'ok' : 'not configured' });
    expect(body.store).toBe(process.env.DATABASE_URL ? 'postgres' : 'pglite');
  });

  it('answers malformed JSON with 400 { error }', async () => {
    const response = await client.request('POST', '/api/client-errors', { body: '{"broken":', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'Invalid JSON' });
  });

  it('answers a 2 MB body with 413 { error }', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(2 * 1024 * 1024) });
    const response = await client.request('POST', '/api/client-errors', { body: big, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'Payload too large' });
  });

  it('answers an unknown API route with 404 JSON and a wrong method with 405 JSON', async () => {
    const missing = await client.get('/api/no-such-thing');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/No route/);
    const wrongMethod = await client.json('DELETE', '/api/health');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toEqual({ error: 'Method Not Allowed' });
    // The route is found before the body is read: a method no route takes is refused whatever it carries.
    const wrongMethodBadBody = await client.request('POST', '/api/health', { body: '{"broken":', headers: { 'content-type': 'application/json' } });
    expect(wrongMethodBadBody.status).toBe(405);
  });

  it('serves the web app, with deep links falling back to its index', async () => {
    for (const path of ['/', '/plans/some-deep-link']) {
      const response = await client.request('GET', path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/html/);
      expect(await response.text()).toMatch(/<html/i);
    }
  });
});
