import { eq, inArray, lt } from 'drizzle-orm';
import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from '@oslojs/encoding';
import type { BaseServices } from '../services.ts';
import { sessions } from '../storage/schema.ts';
import { preparedQueries, sessionsWithUsers } from '../storage/preparedQueries.ts';
import type { UserRow } from '../storage/rows.ts';
import { can } from '../policy/index.ts';
import type { Auth } from './auth.ts';

export const SESSION_COOKIE = 'csp.session-token';
export const SESSION_MAX_AGE_MS = 8 * 60 * 60 * 1000;
const denyKey = (sessionId: string) => `sess:deny:${sessionId}`;

/** 160 random bits, base32: the cookie value. Only its hash is stored. */
export function generateSessionToken(): string {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  return encodeBase32LowerCaseNoPadding(bytes);
}

export function sessionIdOf(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

export async function createSession({ storage }: BaseServices, userId: string, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
  const token = generateSessionToken();
  const expiresAt = new Date(now.getTime() + SESSION_MAX_AGE_MS);
  await storage.db.insert(sessions).values({ id: sessionIdOf(token), userId, expiresAt, createdAt: now });
  return { token, expiresAt };
}

const isSessionToken = (token: string) => /^[a-z2-7]{32}$/.test(token);

type SessionRow = { session: typeof sessions.$inferSelect; user: UserRow; preview: UserRow | null };

/**
 * The session behind a cookie token, or null when it is unknown, expired, denied or its user
 * inactive. A session validated in the last seconds comes from this process's cache unless `fresh`
 * asks for the database (mutations that administer users).
 */
export async function validateSessionToken(services: BaseServices, token: string, { fresh = false } = {}): Promise<Auth | null> {
  if (!isSessionToken(token)) return null;
  const cached = fresh ? undefined : services.sessionCache.get(token);
  if (cached) return cached;
  const sessionId = sessionIdOf(token);
  const readStarted = services.sessionCache.readStarted();
  // Both look-ups at once: one round trip of waiting on every request instead of two.
  const [denied, [row]] = await Promise.all([deniedAmong(services, [sessionId]), preparedQueries(services.storage.db).sessionById.execute({ id: sessionId })]);
  const auth = row && denied.size === 0 ? await authOfRow(services, row) : null;
  if (auth) services.sessionCache.set(token, auth, readStarted);
  // A fresh read is the truth, also for the cached copy (a change made outside this server).
  else if (fresh) services.sessionCache.forget({ sessionIds: [sessionId] });
  return auth;
}

/** Many tokens at once (the periodic check of every open connection): one deny look-up, one query. */
export async function validateSessionTokens(services: BaseServices, tokens: string[]): Promise<Map<string, Auth>> {
  const tokensById = new Map(tokens.filter(isSessionToken).map((token) => [sessionIdOf(token), token]));
  const denied = await deniedAmong(services, [...tokensById.keys()]);
  const ids = [...tokensById.keys()].filter((id) => !denied.has(id));
  const valid = new Map<string, Auth>();
  if (ids.length === 0) return valid;
  for (const row of await sessionsWithUsers(services.storage.db).where(inArray(sessions.id, ids))) {
    const auth = await authOfRow(services, row);
    if (auth) valid.set(tokensById.get(auth.sessionId)!, auth);
  }
  return valid;
}

async function authOfRow(services: BaseServices, row: SessionRow): Promise<Auth | null> {
  const sessionId = row.session.id;
  if (row.session.expiresAt.getTime() <= Date.now()) {
    await services.storage.db.delete(sessions).where(eq(sessions.id, sessionId));
    return null;
  }
  if (!row.user.isActive) return null;
  const previewing = row.preview !== null && can(row.user, 'previewAs');
  return { sessionId, expiresAt: row.session.expiresAt, user: row.user, actor: previewing ? row.preview! : row.user, previewing };
}

/**
 * The sessions among these that have a deny entry. The entry makes every process refuse a session
 * at once; the row's deletion makes that hold without Redis too (validation reads the database).
 */
async function deniedAmong({ kv, logger }: BaseServices, sessionIds: string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  try {
    // One session (every request) is a plain GET; `getMany` would also fetch each key's TTL.
    const entries =
      sessionIds.length === 1 ? [await kv.get(denyKey(sessionIds[0]!))] : (await kv.getMany(sessionIds.map(denyKey))).map((entry) => entry?.value ?? null);
    return new Set(sessionIds.filter((_id, index) => entries[index] !== null));
  } catch (error) {
    logger.warn({ err: error }, 'session deny check failed; relying on the database');
    return new Set();
  }
}

async function deny({ kv, logger }: Pick<BaseServices, 'kv' | 'logger'>, entries: { id: string; expiresAt: Date }[]): Promise<void> {
  await Promise.all(
    entries.map(({ id, expiresAt }) =>
      kv.set(denyKey(id), '1', Math.max(1000, expiresAt.getTime() - Date.now())).catch((error: unknown) => {
        logger.warn({ err: error }, 'could not write a session deny entry; the deleted row still refuses it');
      }),
    ),
  );
}

export async function invalidateSession(services: BaseServices, sessionId: string): Promise<void> {
  const removed = await services.storage.db.delete(sessions).where(eq(sessions.id, sessionId)).returning({ id: sessions.id, expiresAt: sessions.expiresAt });
  await deny(services, removed.length ? removed : [{ id: sessionId, expiresAt: new Date(Date.now() + SESSION_MAX_AGE_MS) }]);
}

/** Ends every session of these users (deactivated, deleted). */
export async function invalidateUserSessions(services: Pick<BaseServices, 'storage' | 'kv' | 'logger'>, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  const removed = await services.storage.db
    .delete(sessions)
    .where(inArray(sessions.userId, userIds))
    .returning({ id: sessions.id, expiresAt: sessions.expiresAt });
  await deny(services, removed);
}

export async function deleteExpiredSessions({ storage }: Pick<BaseServices, 'storage'>): Promise<void> {
  await storage.db.delete(sessions).where(lt(sessions.expiresAt, new Date()));
}
