import type { NeedsUpdateFlag, PlanStatus, Step, StepAnswers, TransferRecord } from '@csp/shared';
import type { Editor } from '@csp/shared/api/forms';
import type { RolloverEvent } from '@csp/shared/api/realtime';
import type { Database } from '../storage/database.ts';
import type { MailItemData } from '@csp/shared/mail';
import type { CommentReplyRow, NotificationRow, PlanRow, Thread } from '../storage/rows.ts';
import type { StepLock } from './plans/stepLocks.ts';

/** Who wrote: the acting user. */
export interface Writer {
  id: string;
  name: string;
}

/** One step's answers as a committed write left them. */
export interface WrittenAnswers {
  step: Step;
  /** Only the answers the write changed. */
  answers: StepAnswers;
  /** What those answers held before the write (null: empty). */
  previous: StepAnswers;
  completed: boolean;
  revisionCount: number;
  lastUpdated: Date;
  /** Whether the step's live document was ever opened (otherwise it is seeded from the record when it is first opened). */
  hasDocument: boolean;
}

/** Why answers were written, when it was not people editing them (an answer's history tells). */
export type WriteOrigin = { kind: 'restore'; revisionId: string | null } | { kind: 'copy' };

/** A session that ended: its deny entry lasts until `expiresAt` (null: the longest a session lives). */
interface EndedSession {
  id: string;
  expiresAt: Date | null;
}

/**
 * What happened, recorded inside the transaction that made it happen (`DomainEvents.transaction`):
 * in-transaction subscribers write beside it, the others hear of it once it is committed, and a
 * rollback drops it.
 */
export type RecordedEvent =
  | { type: 'plan.statusChanged'; plan: PlanRow; from: PlanStatus; to: PlanStatus; action: 'submit' | 'review'; comment: string | undefined; by: Writer }
  | { type: 'plan.reviewFlagsCleared'; formId: string; cleared: NeedsUpdateFlag[] }
  /** A copy into an existing plan filled blank answers (duplicate or rollover with `force`). */
  | { type: 'plan.stepsFilled'; formId: string; by: Writer; steps: WrittenAnswers[] }
  | { type: 'plan.detailsChanged'; formId: string; changes: { schoolName?: string; principalEmail?: string; assignedTo?: string | null } }
  | { type: 'plan.deleted'; formId: string }
  | { type: 'plan.sharedWithUsers'; formId: string; userIds: string[]; permission: 'view' | 'edit'; sections: string[]; by: Writer }
  | { type: 'plan.unshared'; formId: string; userIds: string[] }
  /** `added`: the addresses the share did not have before. */
  | { type: 'plan.emailSharesSet'; formId: string; emails: string[]; added: string[]; by: Writer }
  | { type: 'plan.liveOverrideSet'; formId: string; live: boolean }
  | { type: 'plan.ownershipTransferred'; formId: string; transfer: TransferRecord; by: Writer }
  /** A review thread started (its comment), replied to, read, resolved or reopened: the whole thread as it is now. */
  | { type: 'comment.created'; thread: Thread }
  | { type: 'comment.replied'; thread: Thread; reply: CommentReplyRow }
  | { type: 'comment.statusChanged'; thread: Thread }
  /** `mail`: the e-mail about it, when it is one people get by e-mail (`key` names the event and the person). */
  | { type: 'notification.created'; notification: NotificationRow; mail?: { key: string; data: MailItemData } }
  | { type: 'schoolYear.archiveChanged'; schoolYear: string; archived: boolean }
  | { type: 'district.rolledOver'; sourceYear: string; targetYear: string }
  | { type: 'session.previewChanged'; sessionId: string; previewUserId: string | null }
  | { type: 'sessions.ended'; sessions: EndedSession[] }
  /** Users changed, deleted or given other flags: what they may do may have changed; `endedSessions` were ended with the change. */
  | { type: 'users.changed'; userIds: string[]; endedSessions: EndedSession[] };

/**
 * What happened outside a transaction of its own: a step write committed alone (autosaves are
 * written in batches, one statement for many saves), step locks and presence in the shared store,
 * a rollover's progress. Only after-commit subscribers hear of these.
 */
export type PublishedEvent =
  /**
   * `authors`: by question, everyone whose live edits the write holds (a record written from a live
   * document); otherwise the writer wrote them all. `origin`: a restore or a copy, not people editing.
   */
  | {
      type: 'step.saved';
      formId: string;
      by: Writer;
      write: WrittenAnswers;
      /** Read from the step's live document (its record): the document holds these answers already. */
      fromDocument?: boolean | undefined;
      authors?: Record<string, string[]> | undefined;
      origin?: WriteOrigin | undefined;
    }
  | { type: 'step.lockTaken'; formId: string; lock: StepLock }
  | { type: 'step.lockReleased'; formId: string; lock: StepLock }
  | { type: 'plan.presenceChanged'; formId: string; editors: Editor[] }
  | { type: 'district.rolloverProgress'; userId: string; progress: RolloverEvent['progress'] };

export type DomainEvent = RecordedEvent | PublishedEvent;
export type EventOf<T extends DomainEvent['type']> = Extract<DomainEvent, { type: T }>;

/** Records an event of the transaction under way. */
export type RecordEvent = (event: RecordedEvent) => void;

/** How domain functions change things: one transaction whose events are delivered after it commits, or an event published as it happens. */
export interface DomainEvents {
  /**
   * Runs `work` in one database transaction. The events it records reach the in-transaction
   * subscribers before the commit (their writes commit or roll back with the change) and every
   * other subscriber after it; a rollback drops them.
   */
  transaction<T>(work: (tx: Database, record: RecordEvent) => Promise<T>): Promise<T>;
  /** Delivers an event to the after-commit subscribers now (what it reports is already stored, or lives in the shared store). */
  publish(event: PublishedEvent): Promise<void>;
}
