import type { Auth } from './auth.ts';

const TTL_MS = 5_000;
const MAX_ENTRIES = 20_000;

/** Whose sessions to forget: the same scope that re-checks live connections. */
export interface SessionScope {
  all?: boolean;
  userIds?: string[];
  sessionIds?: string[];
}

/**
 * This process's validated sessions, kept a few seconds so the requests of an open editor (its
 * autosaves, its GETs, its sockets) do not each read the session row and the deny list.
 *
 * Everything that ends or changes a session or its user (sign-out, preview, update, deactivation,
 * deletion, archiving) reaches every process as an access change, and each forgets the concerned
 * entries before it re-checks anything. A process that can miss those changes must not cache: with
 * PostgreSQL but no Redis, other processes may share the database and nothing tells this one, so
 * the cache is off (`enabled` false). Mutations that administer users read the session fresh.
 */
export class SessionCache {
  private readonly entries = new Map<string, { auth: Auth; until: number }>();
  private forgotten = 0;
  readonly enabled: boolean;

  constructor(enabled: boolean) {
    this.enabled = enabled;
  }

  get(sessionId: string): Auth | undefined {
    const entry = this.entries.get(sessionId);
    if (!entry) return undefined;
    const now = Date.now();
    if (entry.until > now && entry.auth.expiresAt.getTime() > now) return entry.auth;
    this.entries.delete(sessionId);
    return undefined;
  }

  /** Marks the start of a database read; `set` keeps its result only if nothing was forgotten meanwhile. */
  readStarted(): number {
    return this.forgotten;
  }

  set(auth: Auth, readStarted: number): void {
    if (!this.enabled || readStarted !== this.forgotten) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(auth.sessionId, { auth, until: Date.now() + TTL_MS });
  }

  forget(scope: SessionScope): void {
    if (!scope.all && !scope.userIds?.length && !scope.sessionIds?.length) return;
    this.forgotten++;
    if (scope.all) return this.entries.clear();
    for (const [sessionId, { auth }] of this.entries) {
      if (scope.sessionIds?.includes(sessionId) || scope.userIds?.includes(auth.user.id) || scope.userIds?.includes(auth.actor.id)) {
        this.entries.delete(sessionId);
      }
    }
  }
}
