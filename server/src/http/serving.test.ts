/**
 * How the server answers, as a browser, a CDN and `curl` see it: the security headers on each kind
 * of answer (the shell, a deep link, an immutable asset, API JSON, API errors, a file download, the
 * API reference, the development sign-in page, Socket.IO's own answers, refused WebSocket upgrades),
 * caching (immutable assets, the shell revalidated to a 304), brotli and gzip from the build,
 * JSON compressed on the fly, and HEAD wherever GET is. Raw node:http requests, so nothing is
 * decoded or added on the way.
 */
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/testServer.ts';
import { signIn } from '../testing/signIn.ts';
import { formIdOf, readStep, saveBody, stepPath } from '../testing/plans.ts';
import { questionsOfType, validAnswer } from '../testing/bundledBank.ts';
import type { HttpClient } from '../testing/httpClient.ts';
import { securityHeaders } from './securityHeaders.ts';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

let server: TestServer;
let principal: HttpClient;
let formId: string;
let shellHtml: string;

function raw(method: string, path: string, headers: Record<string, string> = {}, base = server.url): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(path, base), { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** A WebSocket upgrade request; the answer when the server refuses it (101 is reported as such). */
function upgrade(path: string, origin: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(path, server.url), {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), origin },
    });
    request.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.alloc(0) });
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}

const directives = (answer: RawAnswer) =>
  new Map(
    String(answer.headers['content-security-policy'] ?? '')
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...values]) => [name!, values]),
  );

/** The headers of a page (the shell, a deep link, the API reference, the development sign-in). */
function expectPageHeaders(answer: RawAnswer, what: string) {
  const policy = directives(answer);
  expect(policy.get('default-src'), what).toEqual(["'self'"]);
  expect(policy.get('script-src')?.[0], what).toBe("'self'");
  expect(policy.get('script-src'), what).not.toContain("'unsafe-inline'");
  expect(policy.get('script-src'), what).not.toContain("'unsafe-eval'");
  expect(policy.get('object-src'), what).toEqual(["'none'"]);
  expect(policy.get('frame-ancestors'), what).toEqual(["'none'"]);
  expect(policy.get('base-uri'), what).toEqual(["'self'"]);
  expect(policy.get('form-action'), what).toEqual(["'self'"]);
  const sockets = `ws://${new URL(server.url).host}`;
  expect(policy.get('connect-src'), what).toEqual(["'self'", `${sockets}/collab`, `${sockets}/realtime/`]);
  expect(policy.has('upgrade-insecure-requests'), what).toBe(false);
  expect(answer.headers['cross-origin-opener-policy'], what).toBe('same-origin');
  expect(answer.headers['permissions-policy'], what).toMatch(/(^|, )camera=\(\)/);
  expect(answer.headers['permissions-policy'], what).toMatch(/(^|, )geolocation=\(\)/);
  expectEveryAnswersHeaders(answer, what);
}

/**
 * The headers of a resource a page loads (a script, API JSON, a download, an error, Socket.IO): it
 * may run and load nothing if opened as a page, nobody may frame it, and the page-only headers are
 * left off (they would weigh about a kilobyte on each of a page's requests).
 */
function expectResourceHeaders(answer: RawAnswer, what: string) {
  const policy = directives(answer);
  expect(policy.get('default-src'), what).toEqual(["'none'"]);
  expect(policy.get('frame-ancestors'), what).toEqual(["'none'"]);
  expect(policy.size, what).toBe(2);
  expect(answer.headers['permissions-policy'], what).toBeUndefined();
  expect(answer.headers['cross-origin-opener-policy'], what).toBeUndefined();
  expect(answer.headers['cross-origin-resource-policy'], what).toBe('same-origin');
  expectEveryAnswersHeaders(answer, what);
}

function expectEveryAnswersHeaders(answer: RawAnswer, what: string) {
  expect(answer.headers['x-content-type-options'], what).toBe('nosniff');
  expect(answer.headers['x-frame-options'], what).toBe('DENY');
  expect(answer.headers['referrer-policy'], what).toBe('same-origin');
  // Served over http here: no HSTS (a browser would ignore it, and a local run must not pin https).
  expect(answer.headers['strict-transport-security'], what).toBeUndefined();
}

const sha256 = (text: string) => `sha256-${createHash('sha256').update(text).digest('base64')}`;

beforeAll(async () => {
  server = await startTestServer();
  principal = await signIn(server.url, 'principal.harbor@example.org');
  formId = await formIdOf(principal, 'Harbor View Academy');
  shellHtml = (await raw('GET', '/')).body.toString('utf8');
});
afterAll(() => server?.stop());

describe('the web app’s files', () => {
  it('serves the shell and its deep links no-cache with a validator, the CSP allowing exactly its inline bootstrap', async () => {
    const inlineScripts = [...shellHtml.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
    expect(inlineScripts.length).toBeGreaterThan(0);
    for (const path of ['/', '/index.html', '/plans/some-deep-link', '/admin/users?q=x']) {
      const answer = await raw('GET', path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-type'], path).toMatch(/^text\/html/);
      expect(answer.body.toString('utf8'), path).toBe(shellHtml);
      expect(answer.headers['cache-control'], path).toBe('no-cache');
      expect(answer.headers['last-modified'], path).toBeDefined();
      expectPageHeaders(answer, path);
      // Each inline script runs because its hash is listed, and only those: any other inline script is refused.
      const hashes = directives(answer)
        .get('script-src')!
        .filter((source) => source.startsWith("'sha"))
        .map((source) => source.slice(1, -1));
      expect(hashes.sort(), path).toEqual(inlineScripts.map(sha256).sort());
    }
  });

  it('answers a reload of the shell with 304 and no body while the build is unchanged', async () => {
    const first = await raw('GET', '/plans/some-deep-link', { 'accept-encoding': 'br' });
    const validator = first.headers['last-modified']!;
    for (const path of ['/', '/plans/some-deep-link', '/dashboard']) {
      const again = await raw('GET', path, { 'if-modified-since': validator, 'accept-encoding': 'br' });
      expect(again.status, path).toBe(304);
      expect(again.body.length, path).toBe(0);
      expectPageHeaders(again, `${path} (304)`);
    }
    // An older copy is sent the file again.
    const older = new Date(Date.parse(validator) - 60_000).toUTCString();
    expect((await raw('GET', '/', { 'if-modified-since': older })).status).toBe(200);
  });

  it('serves content-hashed assets for a year, immutable, and a missing one as 404 rather than the shell', async () => {
    const assets = [...shellHtml.matchAll(/(?:href=|import\()"(\/_app\/immutable\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThan(2);
    for (const path of [...new Set(assets)].slice(0, 4)) {
      const answer = await raw('GET', path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-type'], path).toMatch(path.endsWith('.css') ? /^text\/css/ : /javascript/);
      expect(answer.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
      expectResourceHeaders(answer, path);
    }
    const missing = await raw('GET', '/_app/immutable/chunks/no-such-file.js');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
    expectResourceHeaders(missing, 'a missing asset');
  });

  it('sends the build’s brotli or gzip copy as Accept-Encoding asks, with Vary, and the plain file otherwise', async () => {
    const script = /import\("(\/_app\/immutable\/entry\/start\.[^"]+\.js)"\)/.exec(shellHtml)![1]!;
    for (const path of ['/', '/plans/deep', script]) {
      const plain = await raw('GET', path);
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(plain.headers.vary, path).toMatch(/accept-encoding/i);

      const brotli = await raw('GET', path, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      expect(brotli.headers['content-encoding'], path).toBe('br');
      expect(brotli.headers.vary, path).toMatch(/accept-encoding/i);
      expect(brotliDecompressSync(brotli.body).equals(plain.body), path).toBe(true);
      expect(brotli.body.length, path).toBeLessThan(plain.body.length);

      const gzip = await raw('GET', path, { 'accept-encoding': 'gzip' });
      expect(gzip.headers['content-encoding'], path).toBe('gzip');
      expect(gunzipSync(gzip.body).equals(plain.body), path).toBe(true);

      // br refused explicitly: gzip; neither accepted: the plain file.
      expect((await raw('GET', path, { 'accept-encoding': 'br;q=0, gzip' })).headers['content-encoding'], path).toBe('gzip');
      expect((await raw('GET', path, { 'accept-encoding': 'identity' })).headers['content-encoding'], path).toBeUndefined();
    }
  });
});

describe('the API', () => {
  it('compresses JSON above a kilobyte on the fly, and leaves small answers as they are', async () => {
    const document = await raw('GET', '/api/openapi.json', { 'accept-encoding': 'gzip, br' });
    expect(document.status).toBe(200);
    expect(document.headers['content-encoding']).toBe('br');
    expect(document.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(brotliDecompressSync(document.body).toString('utf8')).openapi).toMatch(/^3\.1/);
    expectResourceHeaders(document, 'API JSON');

    const gzip = await raw('GET', '/api/openapi.json', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.body).toString('utf8')).openapi).toMatch(/^3\.1/);

    const health = await raw('GET', '/api/health', { 'accept-encoding': 'gzip, br' });
    expect(health.status).toBe(200);
    expect(health.body.length).toBeLessThan(1024);
    expect(health.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(health.body.toString('utf8')).status).toBe('ok');
    expectResourceHeaders(health, 'small API JSON');
  });

  it('revalidates the API’s reads: private, no-cache, an ETag; unchanged is a 304 with no body, changed a 200 with a new ETag', async () => {
    const cookie = principal.cookieHeader();
    const path = `/api/forms/${formId}/step/2`;
    const first = await raw('GET', path, { cookie });
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    const again = await raw('GET', path, { cookie, 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expectResourceHeaders(again, 'API 304');
    const [textQuestion] = questionsOfType(2, 'textarea');
    const { revisionCount } = await readStep(principal, formId, 2);
    const saved = await principal.put(
      stepPath(formId, 2),
      saveBody({ [textQuestion!.id]: `${String(validAnswer(textQuestion!))} (revalidated)` }, { revisionCount }),
    );
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const changed = await raw('GET', path, { cookie, 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.body.toString('utf8')).toContain('(revalidated)');
  });

  it('puts the headers on errors: 401, 404, 405', async () => {
    for (const [method, path, status] of [
      ['GET', '/api/users', 401],
      ['GET', '/api/no-such-thing', 404],
      ['DELETE', '/api/health', 405],
    ] as const) {
      const answer = await raw(method, path, { origin: server.url });
      expect(answer.status, path).toBe(status);
      expect(JSON.parse(answer.body.toString('utf8')).error, path).toBeTruthy();
      expectResourceHeaders(answer, `${method} ${path}`);
    }
  });

  it('keeps the PDF and DOCX downloads attachments, never sniffed', async () => {
    for (const format of ['pdf', 'docx']) {
      const answer = await raw('GET', `/api/forms/${formId}/export/${format}`, { cookie: principal.cookieHeader(), 'accept-encoding': 'gzip, br' });
      expect(answer.status, format).toBe(200);
      expect(answer.headers['content-disposition'], format).toMatch(new RegExp(`^attachment; filename=".+\\.${format}"`));
      expect(answer.headers['content-type'], format).toMatch(format === 'pdf' ? /^application\/pdf/ : /wordprocessingml/);
      // Already compressed formats go out as they are.
      expect(answer.headers['content-encoding'], format).toBeUndefined();
      expect(answer.body.subarray(0, 4).toString('latin1'), format).toBe(format === 'pdf' ? '%PDF' : 'PK\u0003\u0004');
      expectResourceHeaders(answer, `${format} download`);
    }
  });

  it('serves the API reference page under the same policy: no script of its own, styles inline', async () => {
    const answer = await raw('GET', '/api/docs', { 'accept-encoding': 'br' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    const page = brotliDecompressSync(answer.body).toString('utf8');
    expect(page).not.toMatch(/<script/i);
    expect(directives(answer).get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expectPageHeaders(answer, 'API reference');
  });
});

describe('HEAD', () => {
  it('answers HEAD wherever GET answers, with the same status and headers and no body', async () => {
    const script = /import\("(\/_app\/immutable\/entry\/start\.[^"]+\.js)"\)/.exec(shellHtml)![1]!;
    for (const path of ['/api/health', '/api/public/overview', '/api/openapi.json', '/api/docs', '/', '/plans/deep-link', script, '/favicon.svg']) {
      const get = await raw('GET', path);
      const head = await raw('HEAD', path);
      expect(head.status, path).toBe(200);
      expect(head.status, path).toBe(get.status);
      expect(head.headers['content-type'], path).toBe(get.headers['content-type']);
      expect(head.headers['cache-control'], path).toBe(get.headers['cache-control']);
      expect(head.body.length, path).toBe(0);
      (path === '/' || path === '/api/docs' || path.startsWith('/plans/') ? expectPageHeaders : expectResourceHeaders)(head, `HEAD ${path}`);
    }
    // A private route is as private by HEAD as by GET.
    expect((await raw('HEAD', '/api/users')).status).toBe(401);
    expect((await raw('HEAD', '/api/users', { cookie: principal.cookieHeader() })).status).toBe(200);
  });
});

describe('answers made outside Koa', () => {
  it('refuses WebSocket upgrades with a real answer carrying the headers: an unknown path, a foreign Origin', async () => {
    const own = new URL(server.url).origin;
    const unknown = await upgrade('/somewhere-else', own);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body.toString('utf8')).error).toMatch(/No WebSocket/);
    expectResourceHeaders(unknown, 'upgrade to an unknown path');
    for (const path of ['/collab', '/realtime/?EIO=4&transport=websocket']) {
      const foreign = await upgrade(path, 'https://evil.example.com');
      expect(foreign.status, path).toBe(403);
      expectResourceHeaders(foreign, `cross-site upgrade to ${path}`);
      // The same upgrade from the app's own origin is taken.
      expect((await upgrade(path, own)).status, path).toBe(101);
    }
  });

  it('puts the headers on Socket.IO’s own HTTP answers', async () => {
    const handshake = await raw('GET', '/realtime/?EIO=4&transport=polling', { origin: new URL(server.url).origin });
    expect(handshake.status).toBe(200);
    expectResourceHeaders(handshake, 'Socket.IO handshake');
    const refused = await raw('GET', '/realtime/?EIO=4&transport=polling', { origin: 'https://evil.example.com' });
    expect(refused.status).toBe(403);
    expectResourceHeaders(refused, 'Socket.IO refusal');
  });

  it('serves the development sign-in page under the policy, its form posting to this origin', async () => {
    const start = await raw('GET', '/api/auth/signin?callbackUrl=/plans');
    expect(start.status).toBe(302);
    expectResourceHeaders(start, 'sign-in redirect');
    const authorize = await raw('GET', start.headers.location!);
    expect(authorize.status).toBe(303);
    expectPageHeaders(authorize, 'identity provider redirect');
    const cookie = (authorize.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).join('; ');
    const page = await raw('GET', authorize.headers.location!, { cookie });
    expect(page.status).toBe(200);
    expectPageHeaders(page, 'development sign-in page');
    const action = /<form method="post" action="([^"]+)"/.exec(page.body.toString('utf8'))![1]!;
    expect(action).toMatch(/^\/dev-idp\/interaction\/[\w-]+\/login$/);
  });
});

describe('over https', () => {
  it('adds HSTS and upgrades insecure requests, and names wss: for the sockets', async () => {
    const headers = securityHeaders({ appUrl: 'https://plans.example.org', scriptHashes: ['sha256-abc='], socketPaths: ['/collab', '/realtime/'] });
    const probe = http.createServer((request, response) => {
      headers(request, response);
      response.end('ok');
    });
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await raw('GET', '/', {}, `http://127.0.0.1:${(probe.address() as { port: number }).port}`);
      expect(answer.headers['strict-transport-security']).toBe('max-age=31536000');
      const policy = directives(answer);
      expect(policy.has('upgrade-insecure-requests')).toBe(true);
      expect(policy.get('connect-src')).toEqual(["'self'", 'wss://plans.example.org/collab', 'wss://plans.example.org/realtime/']);
      expect(policy.get('script-src')).toEqual(["'self'", "'sha256-abc='"]);
    } finally {
      await new Promise((resolve) => probe.close(resolve));
    }
  });
});
