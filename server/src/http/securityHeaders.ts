import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import helmet from 'helmet';

/** Sets this app's security headers on a response before anything else writes to it. */
export type SecurityHeaders = (request: IncomingMessage, response: ServerResponse) => void;

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

/**
 * Browser features the app never uses, refused to its pages and to anything they could embed.
 * Only names Chromium knows: an unknown one is an error in the console of every page.
 */
const UNUSED_FEATURES = [
  'accelerometer',
  'autoplay',
  'camera',
  'display-capture',
  'encrypted-media',
  'fullscreen',
  'geolocation',
  'gyroscope',
  'hid',
  'idle-detection',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'picture-in-picture',
  'publickey-credentials-get',
  'screen-wake-lock',
  'serial',
  'usb',
  'xr-spatial-tracking',
];
const PERMISSIONS_POLICY = UNUSED_FEATURES.map((feature) => `${feature}=()`).join(', ');

/**
 * Whether a request asks for something a browser shows as a page (the web app's shell and its deep
 * links, the API reference, the development sign-in), rather than a resource a page loads (scripts,
 * styles, images, API JSON, downloads, Socket.IO). Decided by path, not by the answer's type: a 304
 * carries no type, and its headers replace those a browser stored for the page.
 */
function isDocumentPath(path: string): boolean {
  if (path === '/api/docs') return true;
  if (path.startsWith('/api/') || path === '/api' || path.startsWith('/_app/')) return false;
  if (path.startsWith('/realtime') || path.startsWith('/collab')) return false;
  const last = path.slice(path.lastIndexOf('/') + 1);
  return !last.includes('.') || last.endsWith('.html');
}

/**
 * The headers of every answer (helmet, configured). A page gets the full policy: a
 * Content-Security-Policy that runs only this origin's scripts plus the web build's inline bootstrap
 * (`scriptHashes`, read from its shell), talks only to this origin's REST and WebSocket paths
 * (`socketPaths`), and may be framed by nobody; a browsing context group of its own; no browser
 * feature it does not use. A resource gets what applies to it (as OWASP advises for APIs): a policy
 * that lets it run and load nothing should it be opened as a page, no framing, no MIME sniffing, no
 * use by other sites; the page-only headers would add about a kilobyte to each of a page's ~50
 * requests. Both: no referrer beyond this origin, HSTS when served over https.
 * Styles may be inline: Svelte and bits-ui set style attributes, and the server's own pages (API
 * reference, development sign-in) carry a <style> block; scripts never.
 */
export function securityHeaders(options: { appUrl: string; scriptHashes: readonly string[]; socketPaths: readonly string[] }): SecurityHeaders {
  const app = new URL(options.appUrl);
  const https = app.protocol === 'https:';
  const ownSockets = `${https ? 'wss' : 'ws'}://${app.host}`;
  const shared = {
    // Stricter than strict-origin-when-cross-origin: other sites learn nothing, while this origin's
    // own requests keep their Origin header, which the cross-site request guard reads.
    referrerPolicy: { policy: 'same-origin' },
    // Not for subdomains: the district's other sites under the same domain are not this app's to decide.
    strictTransportSecurity: https ? { maxAge: ONE_YEAR_SECONDS, includeSubDomains: false } : false,
    xFrameOptions: { action: 'deny' },
  } as const;
  const setPageHeaders = helmet({
    ...shared,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...options.scriptHashes.map((hash) => `'${hash}'`)],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        // 'self' covers ws: and wss: of this origin in current browsers; the socket paths are named for the others.
        connectSrc: ["'self'", ...options.socketPaths.map((path) => `${ownSockets}${path}`)],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        // Over plain http (a local run) there is nothing to upgrade to.
        upgradeInsecureRequests: https ? [] : null,
      },
    },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
  });
  const setResourceHeaders = helmet({
    ...shared,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  });
  return (request, response) => {
    // A WebSocket upgrade is never shown as a page, whatever its path.
    if (request.headers.upgrade || !isDocumentPath(pathOf(request))) return setResourceHeaders(request, response, () => {});
    setPageHeaders(request, response, () => {});
    response.setHeader('Permissions-Policy', PERMISSIONS_POLICY);
  };
}

/** A request's path, without its query. */
export const pathOf = (request: IncomingMessage) => (request.url ?? '/').split('?')[0]!;

/**
 * Every HTTP answer of `server` gets the security headers first, also those of request listeners
 * attached by libraries (Socket.IO answers its own long-polling requests): the listeners present
 * now run after them, the way Socket.IO itself takes over the listeners it finds.
 */
export function applySecurityHeaders(server: http.Server, headers: SecurityHeaders): void {
  const listeners = server.listeners('request') as http.RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    headers(request, response);
    for (const listener of listeners) listener.call(server, request, response);
  });
}

/**
 * Refuses a WebSocket upgrade with a real HTTP answer (status, security headers, a JSON `{ error }`),
 * then closes the connection.
 */
export function refuseUpgrade(request: IncomingMessage, socket: Duplex, headers: SecurityHeaders, status: number, error: string): void {
  if (!socket.writable) return void socket.destroy();
  const response = new http.ServerResponse(request);
  response.assignSocket(socket as Socket);
  response.shouldKeepAlive = false;
  response.on('finish', () => socket.destroy());
  headers(request, response);
  const body = JSON.stringify({ error });
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  response.end(body);
}
