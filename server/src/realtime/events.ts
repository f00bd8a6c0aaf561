/** Who may have lost (or changed) access, so open live connections are checked again. */
import type {
  CommentEvent,
  FlagEvent,
  LockEvent,
  NotificationEvent,
  PresenceEvent,
  RolloverEvent,
  StatusEvent,
  StepSavedEvent,
} from '@csp/shared/api/realtime';
import type { Step, StepAnswers } from '@csp/shared';
import type { StepLock } from '../domain/plans/stepLocks.ts';
import type { NotificationRow, Thread } from '../storage/rows.ts';

export interface AccessScope {
  userIds?: string[];
  sessionIds?: string[];
  formId?: string;
  /** Every connection (a year archived or made live again). */
  all?: boolean;
}

/**
 * What the rest of the server tells connected clients (docs/collaboration.md). Emits cross
 * server processes through the Socket.IO Redis adapter when Redis is configured.
 */
export interface RealtimeEvents {
  toPlan<E extends PlanEventName>(formId: string, event: E, payload: PlanEventPayloads[E]): void;
  /** Lock acquired or released (expiry is noticed by the gateway itself). */
  lockChanged(formId: string, state: 'acquired' | 'released', lock: StepLock): void;
  toUser<E extends UserEventName>(userId: string, event: E, payload: UserEventPayloads[E]): void;
  /** A thread started, replied to, read, resolved or reopened: to its plan's room, as the API shows comments. */
  commentChanged(thread: Thread): void;
  /** A notification for its user, as the API shows notifications. */
  notified(notification: NotificationRow): void;
  accessChanged(scope: AccessScope): void;
}

/** What each plan-room event carries besides the `formId` the gateway adds: the shared event schemas. */
export interface PlanEventPayloads {
  presence: Omit<PresenceEvent, 'formId'>;
  lock: Omit<LockEvent, 'formId'>;
  comment: Omit<CommentEvent, 'formId'>;
  status: Omit<StatusEvent, 'formId'>;
  flag: Omit<FlagEvent, 'formId'>;
  'step:saved': Omit<StepSavedEvent, 'formId'>;
}
export type PlanEventName = keyof PlanEventPayloads;

export interface UserEventPayloads {
  notification: NotificationEvent;
  rollover: RolloverEvent;
}
export type UserEventName = keyof UserEventPayloads;

/** A committed write of a step's answers, as its live document needs it. */
export interface SavedAnswers {
  formId: string;
  step: Step;
  /** Only the answers the write changed. */
  answers: StepAnswers;
  completed: boolean;
  savedBy: string;
  /** Read from the live document itself (its record): the document holds these answers already. */
  fromDocument?: boolean | undefined;
}

/** After a REST save, the live documents of the step learn the saved answers. */
export interface LiveDocuments {
  isLiveEditor(formId: string, stepKey: string, userId: string): Promise<boolean>;
  /** In the background: the save is already the record. */
  applySavedAnswers(saved: SavedAnswers): void;
}
