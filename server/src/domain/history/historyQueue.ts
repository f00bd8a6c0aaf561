import type { Logger } from '../../logger.ts';
import type { Answer } from '@csp/shared';
import type { RevisionKind } from '@csp/shared/api/history';

/** One answer's change in one committed write. */
export interface AnswerChange {
  questionId: string;
  before: Answer | null;
  after: Answer | null;
  authorIds: string[];
}

export interface StepWriteHistory {
  formId: string;
  stepKey: string;
  /** The step revision the write made. */
  stepRevision: number;
  at: Date;
  kind: RevisionKind;
  restoredFromId: string | null;
  changes: AnswerChange[];
}

/** History writes in flight at once: the rest of the pool stays for the saves themselves. */
const MOST_AT_ONCE = 4;

/**
 * Step writes waiting to join their answers' history. History is written after the save has
 * answered, so nobody waits for it; under a district's autosave load it must never take the
 * database from the saves. At most four writes are in flight; a step's next writes, while its
 * earlier one still waits, join it (each answer keeps its first `before` and takes the latest
 * `after`, its people joined): a backlog shrinks the work instead of growing with it, and history
 * catches up as the load falls. Restores and copies never join anything: each is a revision of
 * its own.
 */
export class HistoryQueue {
  private readonly waiting = new Map<string, StepWriteHistory>();
  private sequence = 0;
  private running = 0;
  private readonly record: (write: StepWriteHistory) => Promise<void>;
  private readonly logger: Logger;

  constructor(record: (write: StepWriteHistory) => Promise<void>, logger: Logger) {
    this.record = record;
    this.logger = logger;
  }

  add(write: StepWriteHistory): void {
    const key = write.kind === 'edit' ? `${write.formId}:${write.stepKey}` : `${write.formId}:${write.stepKey}:${write.kind}:${++this.sequence}`;
    const waiting = this.waiting.get(key);
    if (waiting) join(waiting, write);
    else this.waiting.set(key, { ...write, changes: write.changes.map((change) => ({ ...change, authorIds: [...change.authorIds] })) });
    this.pump();
  }

  /** Resolves once nothing waits or is in flight (a stopping server writes what it holds first). */
  async drain(): Promise<void> {
    while (this.running > 0 || this.waiting.size > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private readonly idle: (() => void)[] = [];

  private pump(): void {
    while (this.running < MOST_AT_ONCE && this.waiting.size > 0) {
      const [key, write] = this.waiting.entries().next().value!;
      this.waiting.delete(key);
      this.running++;
      void this.record(write)
        .catch((error: unknown) => this.logger.error({ err: error, formId: write.formId, stepKey: write.stepKey }, 'answer history not written'))
        .finally(() => {
          this.running--;
          this.pump();
          if (this.running === 0 && this.waiting.size === 0) for (const resolve of this.idle.splice(0)) resolve();
        });
    }
  }
}

/** A later write of the same step joins one still waiting. */
function join(into: StepWriteHistory, later: StepWriteHistory): void {
  into.stepRevision = Math.max(into.stepRevision, later.stepRevision);
  if (later.at > into.at) into.at = later.at;
  for (const change of later.changes) {
    const earlier = into.changes.find((candidate) => candidate.questionId === change.questionId);
    if (!earlier) into.changes.push({ ...change, authorIds: [...change.authorIds] });
    else {
      earlier.after = change.after;
      for (const id of change.authorIds) if (!earlier.authorIds.includes(id)) earlier.authorIds.push(id);
    }
  }
}
