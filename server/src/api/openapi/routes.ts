import Router from '@koa/router';
import { mediaAnswer, operations } from '../../http/operation.ts';
import { openApiDocument, type OpenApiDocument } from './document.ts';
import { renderDocsPage } from './docsPage.ts';

const operation = operations('API reference', {
  document: { summary: 'This API as an OpenAPI 3.1 document', responses: { 200: mediaAnswer('application/json', 'The document.') } },
  page: { summary: 'This API’s reference, as a page', responses: { 200: mediaAnswer('text/html', 'The page.') } },
});

/** The reference of every route `api` mounts, itself included: built on first request, when every route is there. */
export function openapiRoutes(api: Router): Router {
  const router = new Router();
  let document: OpenApiDocument | undefined;
  let page: string | undefined;
  const documentOf = () => (document ??= openApiDocument(api));

  router.get('/openapi.json', operation.document, (ctx) => {
    ctx.body = documentOf();
  });

  router.get('/docs', operation.page, (ctx) => {
    ctx.type = 'html';
    ctx.body = page ??= renderDocsPage(documentOf());
  });

  return router;
}
