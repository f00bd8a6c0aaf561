import type { Session } from '@csp/shared/api/auth';
import { api, ApiError } from '#lib/api/index.ts';
import { clearLocalDocuments } from '#lib/realtime/collab.ts';

export type SessionStatus = 'loading' | 'signed-in' | 'signed-out' | 'unreachable';

/** Who is signed in, read once when the app starts (the root layout's load). */
class SessionState {
  status = $state<SessionStatus>('loading');
  current = $state<Session | null>(null);

  readonly user = $derived(this.current?.user ?? null);
  readonly isSuperAdmin = $derived(this.current?.user.level === 5);

  private loading: Promise<void> | null = null;

  load(): Promise<void> {
    this.loading ??= this.fetch();
    return this.loading;
  }

  private async fetch(): Promise<void> {
    try {
      this.current = await api.session();
      this.status = 'signed-in';
    } catch (error) {
      this.current = null;
      this.status = error instanceof ApiError && error.offline ? 'unreachable' : 'signed-out';
    }
  }

  /** Ends the session and removes the plan copies this browser kept (a shared school computer). */
  async signOut(): Promise<void> {
    await api.signOut();
    await clearLocalDocuments().catch(() => {});
    this.current = null;
    this.status = 'signed-out';
  }
}

export const session = new SessionState();
