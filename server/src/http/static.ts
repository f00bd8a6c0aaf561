import path from 'node:path';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Middleware } from 'koa';
import serve from 'koa-static';

const WEB_BUILD_DIR = path.resolve(import.meta.dirname, '../../../web/build');

/** Serves the built SPA and answers deep links with its index.html. */
export function spaMiddleware(buildDir = WEB_BUILD_DIR): Middleware[] {
  const assets = serve(buildDir, { index: 'index.html', maxage: 0, gzip: false });
  let indexHtml: Promise<Buffer> | undefined;
  const fallback: Middleware = async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body != null || ctx.method !== 'GET') return;
    const indexFile = path.join(buildDir, 'index.html');
    if (!existsSync(indexFile)) {
      ctx.status = 503;
      ctx.body = { error: 'The web app is not built: run `pnpm build`' };
      return;
    }
    indexHtml ??= readFile(indexFile);
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = await indexHtml;
  };
  return [fallback, assets];
}
