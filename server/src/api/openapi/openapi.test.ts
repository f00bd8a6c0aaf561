import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { OpenApiConformance } from '../../testing/openapiConformance.ts';
import { apiRouter } from '../../http/app.ts';
import { openApiDocument, type OpenApiDocument } from './document.ts';

/**
 * The OpenAPI document against the app it describes: its operations are exactly the routes the API
 * router mounts, it is valid OpenAPI 3.1, and anyone can read it and its page. (The answers of every
 * operation are checked against it in responses.test.ts.)
 */
let server: TestServer;
/** As served; a plain JSON object too (the validator takes one). */
let document: OpenApiDocument & Record<string, unknown>;
const anonymous = () => new HttpClient(server.url);

const METHODS = new Set(['get', 'post', 'put', 'delete', 'patch']);
const operationsOf = (doc: OpenApiDocument) =>
  Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item ?? {})
      .filter((method) => METHODS.has(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );

beforeAll(async () => {
  server = await startTestServer();
  const { status, body } = await anonymous().get('/api/openapi.json');
  expect(status).toBe(200);
  document = body;
});
afterAll(() => server?.stop());

describe('the OpenAPI document', () => {
  it('has exactly the operations the API router mounts', () => {
    const router = apiRouter(server.services, { oidc: undefined as never });
    const mounted = router.stack.flatMap((layer) =>
      layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`),
    );
    expect(operationsOf(document).sort()).toEqual(mounted.sort());
    expect(mounted).toContain('PUT /api/forms/{id}/step/{stepNumber}');
    expect(mounted).toContain('GET /api/openapi.json');
  });

  it('refuses to document a router with a route that declares no operation', () => {
    const router = new Router({ prefix: '/api' });
    router.get('/undeclared', (ctx) => {
      ctx.body = {};
    });
    expect(() => openApiDocument(router)).toThrow('GET /api/undeclared declares no operation');
  });

  it('is valid OpenAPI 3.1, with every path parameter declared', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const undeclared = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { parameters?: { in: string; name: string; required?: boolean }[] }>).flatMap(([method, operation]) =>
        [...path.matchAll(/\{(\w+)\}/g)]
          .map((match) => match[1]!)
          .filter((name) => !operation.parameters?.some((parameter) => parameter.in === 'path' && parameter.name === name && parameter.required))
          .map((name) => `${method} ${path}: ${name}`),
      ),
    );
    expect(undeclared).toEqual([]);
  });

  it('describes requests and answers with the shared schemas, and every error with the one envelope', () => {
    const save = document.paths?.['/api/forms/{id}/step/{stepNumber}']?.put;
    expect(save?.requestBody).toMatchObject({ content: { 'application/json': { schema: { properties: { mergeStrategy: { default: 'last-write-wins' } } } } } });
    expect(Object.keys(save?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '409', '423', 'default']));
    expect(document.paths?.['/api/users']?.get?.parameters?.map((parameter) => ('name' in parameter ? parameter.name : ''))).toContain('neverSignedIn');
    expect(document.paths?.['/api/school-year']?.delete?.responses).toMatchObject({ 403: { description: 'Super Admins only.' } });
    expect(document.paths?.['/api/health']?.get?.security).toEqual([]);
    expect(document.components?.schemas?.Error).toMatchObject({ required: ['error'] });
  });

  it('tells the checker of real answers what conforms and what does not', () => {
    const conformance = new OpenApiConformance(document);
    expect(conformance.operationOf('GET', '/api/forms/transfer-ownership')).toBe('GET /api/forms/transfer-ownership');
    expect(conformance.operationOf('GET', `/api/forms/${'a'.repeat(24)}?x=1`)).toBe('GET /api/forms/{id}');
    const health = {
      method: 'GET',
      path: '/api/health',
      status: 200,
      contentType: 'application/json',
      body: { status: 'ok', database: 'ok', redis: 'ok', store: 'pglite' },
    };
    expect(conformance.problems(health)).toEqual([]);
    expect(conformance.problems({ ...health, body: { ...health.body, extra: 1 } })).toEqual([expect.stringMatching(/must NOT have additional properties/)]);
    expect(conformance.problems({ ...health, status: 404, body: { error: 'Not found' } })).toEqual([]);
    expect(conformance.problems({ ...health, status: 201 })).toEqual(['GET /api/health → 201: status not documented for GET /api/health']);
    expect(conformance.problems({ ...health, contentType: 'text/html' })).toEqual([expect.stringMatching(/answered text\/html, documented application\/json/)]);
    expect(conformance.problems({ ...health, method: 'PATCH' })).toEqual(['PATCH /api/health → 200: no such operation in the document']);
  });
});

describe('the reference page', () => {
  it('is served to anyone and lists every operation', async () => {
    const response = await anonymous().request('GET', '/api/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    for (const operation of operationsOf(document)) {
      const [method, path] = operation.split(' ') as [string, string];
      expect(html, operation).toContain(`<span class="method ${method.toLowerCase()}">${method}</span> <code>${path}</code>`);
    }
  });
});
