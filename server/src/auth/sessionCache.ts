import type { Auth } from './auth.ts';

/**
 * How long a validated session is served from memory. Revocations are pushed (below), so this only
 * bounds how long a change made outside the server (a row edited by hand) goes unseen. It is longer
 * than an open editor's autosave interval, so an editor's saves rarely read the session.
 */
const TTL_MS = 30_000;
const MAX_ENTRIES = 20_000;

/** Whose sessions to forget: the same scope that re-checks live connections. */
export interface SessionScope {
  all?: boolean;
  userIds?: string[];
  sessionIds?: string[];
}

/**
 * This process's validated sessions, kept for seconds so the requests of an open editor (its
 * autosaves, its GETs, its sockets) do not each read the session row and the deny list. Entries
 * are found by the cookie's token, so a hit costs no hash of it either.
 *
 * Everything that ends or changes a session or its user (sign-out, preview, update, deactivation,
 * deletion, archiving) reaches every process as an access change, and each forgets the concerned
 * entries before it re-checks anything. A process that can miss those changes must not cache: with
 * PostgreSQL but no Redis, other processes may share the database and nothing tells this one, so
 * the cache is off (`enabled` false); while its Redis subscription is down, it is emptied and keeps
 * nothing (`suspend`/`resume`). Mutations that administer users read the session fresh.
 */
export class SessionCache {
  private readonly entries = new Map<string, { auth: Auth; until: number }>();
  private forgotten = 0;
  private listening = true;
  readonly enabled: boolean;

  constructor(enabled: boolean) {
    this.enabled = enabled;
  }

  get(token: string): Auth | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    const now = Date.now();
    if (entry.until > now && entry.auth.expiresAt.getTime() > now) return entry.auth;
    this.entries.delete(token);
    return undefined;
  }

  /** Marks the start of a database read; `set` keeps its result only if nothing was forgotten meanwhile. */
  readStarted(): number {
    return this.forgotten;
  }

  set(token: string, auth: Auth, readStarted: number): void {
    if (!this.enabled || !this.listening || readStarted !== this.forgotten) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { auth, until: Date.now() + TTL_MS });
  }

  forget(scope: SessionScope): void {
    if (!scope.all && !scope.userIds?.length && !scope.sessionIds?.length) return;
    this.forgotten++;
    if (scope.all) return this.entries.clear();
    for (const [token, { auth }] of this.entries) {
      if (scope.sessionIds?.includes(auth.sessionId) || scope.userIds?.includes(auth.user.id) || scope.userIds?.includes(auth.actor.id)) {
        this.entries.delete(token);
      }
    }
  }

  /** The channel that carries revocations is down: what is kept may miss one, and nothing new is kept. */
  suspend(): void {
    this.listening = false;
    this.forget({ all: true });
  }

  /** The channel is back. A read that began before may have missed a revocation sent meanwhile: not kept. */
  resume(): void {
    this.listening = true;
    this.forgotten++;
  }
}
