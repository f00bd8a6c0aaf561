import type { IncomingMessage } from 'node:http';

// A WebSocket handshake, for both socket servers (/collab and /realtime): the Origin it may come from, and its session cookie.

/**
 * WebSocket handshakes carry the session cookie, so a browser's Origin must be this site
 * (cross-site WebSocket hijacking); clients that send no Origin are not browsers.
 */
export function isAllowedOrigin(request: Pick<IncomingMessage, 'headers'>, appUrl: string): boolean {
  const origin = request.headers.origin;
  if (!origin) return true;
  const host = request.headers['x-forwarded-host'] ?? request.headers.host;
  return origin === new URL(appUrl).origin || origin === `http://${host}` || origin === `https://${host}`;
}

/** The session token from a Cookie header. */
export function sessionTokenFromCookie(cookieHeader: string | null | undefined, cookieName: string): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const split = part.indexOf('=');
    if (split > 0 && part.slice(0, split).trim() === cookieName) return decodeURIComponent(part.slice(split + 1).trim());
  }
  return null;
}
