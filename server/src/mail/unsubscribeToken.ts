import { createHmac, timingSafeEqual } from 'node:crypto';
import { UNSUBSCRIBE_KINDS, type UnsubscribeKind } from '@csp/shared/mail';
import { ID_PATTERN } from '../storage/ids.ts';

/**
 * A one-click unsubscribe link's token: whose mail, which kind, and a signature made with the
 * session secret, so it needs no sign-in and cannot be forged for someone else or another kind.
 */
const sign = (secret: string, userId: string, kind: UnsubscribeKind) =>
  createHmac('sha256', secret).update(`unsubscribe:${userId}:${kind}`).digest('base64url').slice(0, 32);

export function unsubscribeToken(secret: string, userId: string, kind: UnsubscribeKind): string {
  return `${userId}.${kind}.${sign(secret, userId, kind)}`;
}

/** The person and kind a token names, or null for anything not signed by this district. */
export function readUnsubscribeToken(secret: string, token: string): { userId: string; kind: UnsubscribeKind } | null {
  const [userId, kind, signature, ...rest] = token.split('.');
  if (rest.length || !userId || !ID_PATTERN.test(userId) || !signature || !UNSUBSCRIBE_KINDS.includes(kind as UnsubscribeKind)) return null;
  const expected = Buffer.from(sign(secret, userId, kind as UnsubscribeKind));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? { userId, kind: kind as UnsubscribeKind } : null;
}
