// Pure single-page app: nothing is rendered or prerendered on a server. adapter-static writes
// one fallback shell (build/index.html) and the Koa server answers every deep link with it.
export const ssr = false;
export const prerender = false;
