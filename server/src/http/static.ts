import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import type { Middleware } from 'koa';
import serve from 'koa-static';
import send from 'koa-send';
import { notFound } from '../errors.ts';

const WEB_BUILD_DIR = path.resolve(import.meta.dirname, '../../../web/build');
const SHELL = 'index.html';
/** Where the build puts files whose names carry a hash of their content. */
const HASHED_ASSETS = '/_app/immutable/';
const BUILD_ASSETS = '/_app/';

/**
 * Serves the built SPA as a CDN would: content-hashed files under /_app/immutable/ cached for a year
 * and never revalidated; everything else (the shell first) revalidated on every use against its
 * Last-Modified, so a reload after no change is a 304. The brotli or gzip copy the build made is
 * sent when Accept-Encoding takes it. Deep links get the shell; a missing build file is a 404.
 */
export function spaMiddleware(buildDir = WEB_BUILD_DIR): Middleware[] {
  const hashedDir = path.join(buildDir, HASHED_ASSETS);
  const options: send.SendOptions = {
    root: buildDir,
    index: SHELL,
    brotli: true,
    gzip: true,
    setHeaders: (response, filePath) => {
      response.setHeader('Cache-Control', filePath.startsWith(hashedDir) ? 'public, max-age=31536000, immutable' : 'no-cache');
      response.setHeader('Vary', 'Accept-Encoding');
    },
  };
  const assets = serve(buildDir, options);
  const shell: Middleware = async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body != null || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return;
    if (ctx.path.startsWith(BUILD_ASSETS)) throw notFound(`No file ${ctx.path}`);
    if (!existsSync(path.join(buildDir, SHELL))) {
      ctx.status = 503;
      ctx.body = { error: 'The web app is not built: run `pnpm build`' };
      return;
    }
    await send(ctx, SHELL, options);
  };
  return [shell, assets];
}

/**
 * The hashes of the shell's inline scripts, as the web build lists them in its policy meta tag
 * (SvelteKit's `csp` setting); none when the web app is not built.
 */
export function shellScriptHashes(buildDir = WEB_BUILD_DIR): string[] {
  const shellFile = path.join(buildDir, SHELL);
  if (!existsSync(shellFile)) return [];
  const policy = /<meta http-equiv="content-security-policy" content="([^"]*)"/i.exec(readFileSync(shellFile, 'utf8'))?.[1] ?? '';
  const scriptSrc = policy
    .split(';')
    .map((directive) => directive.trim().split(/\s+/))
    .find(([name]) => name === 'script-src');
  return (scriptSrc ?? []).filter((source) => /^'sha(256|384|512)-[\w+/=]+'$/.test(source)).map((source) => source.slice(1, -1));
}
