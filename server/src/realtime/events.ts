/** Who may have lost (or changed) access, so open live connections are checked again. */
import type { StepLock } from '../domain/plans/stepLocks.ts';

export interface AccessScope {
  userIds?: string[];
  sessionIds?: string[];
  formId?: string;
  /** Every connection (a year archived or made live again). */
  all?: boolean;
}

/**
 * What the rest of the server tells connected clients (DESIGN.md section 6). Emits cross
 * server processes through the Socket.IO Redis adapter when Redis is configured.
 */
export interface RealtimeEvents {
  toPlan(formId: string, event: PlanEventName, payload: Record<string, unknown>): void;
  /** Lock acquired or released (expiry is noticed by the gateway itself). */
  lockChanged(formId: string, state: 'acquired' | 'released', lock: StepLock): void;
  toUser(userId: string, event: 'notification' | 'rollover', payload: Record<string, unknown>): void;
  accessChanged(scope: AccessScope): void;
}

export type PlanEventName = 'presence' | 'lock' | 'comment' | 'status' | 'flag' | 'step:saved';

/** After a REST save, the live documents of the step learn the saved answers. */
export interface LiveDocuments {
  isLiveEditor(formId: string, stepKey: string, userId: string): Promise<boolean>;
  /** In the background: the save is already the record. */
  applySavedAnswers(formId: string, stepKey: string, answers: Record<string, unknown>, completed: boolean, savedBy: string): void;
}
