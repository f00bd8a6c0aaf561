import type { SessionScope } from './sessionCache.ts';

/** Who may have lost (or changed) access, so their cached sessions are forgotten and their open live connections checked again. */
export interface AccessScope extends SessionScope {
  /** Every connection to this plan. */
  formId?: string;
}
