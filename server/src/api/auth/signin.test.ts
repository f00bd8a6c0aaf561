import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn, signInFlow } from '../../testing/signIn.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

describe('sign-in smoke', () => {
  it('signs in the principal', async () => {
    const client = await signIn(server.url, 'principal.harbor@example.org');
    const { status, body } = await client.get('/api/auth/session');
    expect(status).toBe(200);
    expect(body.user.email).toBe('principal.harbor@example.org');
  });
  it('refuses the wrong domain', async () => {
    expect((await signInFlow(server.url, 'someone@gmail.com')).location).toBe('/login?error=domain');
  });
});
