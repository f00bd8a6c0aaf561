import type { Session, SessionAbilities } from '@csp/shared/api/auth';
import { api, ApiError } from '#lib/api/index.ts';

const NO_ABILITIES: SessionAbilities = { administerDistrict: false, administerUsers: false, createPlans: false, previewAs: false };

export type SessionStatus = 'loading' | 'signed-in' | 'signed-out' | 'unreachable';

/** Who is signed in, read once when the app starts (the root layout's load). */
class SessionState {
  status = $state<SessionStatus>('loading');
  current = $state<Session | null>(null);

  readonly user = $derived(this.current?.user ?? null);
  /** The policy's answers for the acting user (none while signed out). */
  readonly abilities = $derived<SessionAbilities>(this.current?.abilities ?? NO_ABILITIES);

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

  /** Ends the session. Local copies of step documents are per person, so they stay for their owner. */
  async signOut(): Promise<void> {
    await api.signOut();
    this.current = null;
    this.status = 'signed-out';
  }
}

export const session = new SessionState();
