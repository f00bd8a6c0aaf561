import type { UserRow } from '../storage/rows.ts';

/** A validated session: who signed in and whom the session acts as. */
export interface Auth {
  /** The session id: SHA-256 of the cookie token; the specification's `jti`. */
  sessionId: string;
  expiresAt: Date;
  /** Who signed in. */
  user: UserRow;
  /** Whom the session acts as: the previewed demo user while a Super Admin previews, else `user`. */
  actor: UserRow;
  previewing: boolean;
}
