import adapter from '@sveltejs/adapter-static';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

// The Koa server (REST, Socket.IO, Hocuspocus) that `vite dev` proxies to.
// It honours PORT like every other script; CSP_API_ORIGIN overrides the whole origin.
const apiOrigin = process.env.CSP_API_ORIGIN ?? `http://localhost:${process.env.PORT ?? '3000'}`;

export default defineConfig({
  plugins: [
    // SvelteKit 3: the former svelte.config.js `kit` options are passed straight to the plugin.
    sveltekit({
      adapter: adapter({
        pages: 'build',
        assets: 'build',
        // SPA: every deep link is served this shell by the Koa server
        fallback: 'index.html',
        // brotli and gzip copies beside each file, made once here and served by Accept-Encoding
        precompress: true,
        strict: true,
      }),
      // The shell's inline bootstrap is the one inline script: SvelteKit lists its hash in a policy
      // meta tag, and the server's Content-Security-Policy header allows that hash and nothing else inline.
      csp: { mode: 'hash', directives: { 'script-src': ['self'] } },
    }),
  ],
  server: {
    proxy: {
      '/api': { target: apiOrigin },
      // development identity provider (sign-in pages) when OIDC_ISSUER is unset
      '/dev-idp': { target: apiOrigin },
      '/collab': { target: apiOrigin, ws: true },
      '/realtime': { target: apiOrigin, ws: true },
    },
  },
});
