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
import type { StepLock } from '../domain/plans/stepLocks.ts';
import type { NotificationRow, Thread } from '../storage/rows.ts';
import type { AccessScope } from '../auth/accessScope.ts';

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
interface PlanEventPayloads {
  presence: Omit<PresenceEvent, 'formId'>;
  lock: Omit<LockEvent, 'formId'>;
  comment: Omit<CommentEvent, 'formId'>;
  status: Omit<StatusEvent, 'formId'>;
  flag: Omit<FlagEvent, 'formId'>;
  'step:saved': Omit<StepSavedEvent, 'formId'>;
}
type PlanEventName = keyof PlanEventPayloads;

interface UserEventPayloads {
  notification: NotificationEvent;
  rollover: RolloverEvent;
}
type UserEventName = keyof UserEventPayloads;
