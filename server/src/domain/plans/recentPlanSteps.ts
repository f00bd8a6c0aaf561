import type { AccessVersions, PlanRow, ShareRow, StepRow } from '../../storage/rows.ts';

/** A plan with the caller's share and year flag, and one step's row, as one read or write left them. */
export interface PlanStepRead {
  plan: PlanRow;
  share: ShareRow | null;
  archived: boolean | null;
  step: StepRow | null;
  versions: AccessVersions;
}

/** Long enough to span an open editor's autosaves, short enough that a closed one is soon dropped. */
const TTL_MS = 60_000;
/**
 * Above the editors one process serves at once (the district's few thousand, at its peak 5,000
 * saving every 3 s): with more editors than entries, the oldest-first eviction drops each entry
 * just before its editor's next save, and every autosave reads again. About 4.5 KB an entry.
 */
const MAX_ENTRIES = 20_000;

/**
 * What this process last read or wrote of a plan step for an editor, so that the editor's next
 * autosave needs no read: its write re-checks the step's revision and the access row versions in
 * the same statement, and anything but a successful write is decided on a fresh read
 * (`saveStep`). Nothing here is trusted: a stale entry costs one extra round trip, never a wrong
 * answer.
 */
export class RecentPlanSteps {
  private readonly entries = new Map<string, { read: PlanStepRead; until: number }>();

  get(formId: string, userId: string, stepNumber: number): PlanStepRead | undefined {
    const key = keyOf(formId, userId, stepNumber);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > Date.now()) return entry.read;
    this.entries.delete(key);
    return undefined;
  }

  remember(userId: string, stepNumber: number, read: PlanStepRead): void {
    const key = keyOf(read.plan.id, userId, stepNumber);
    // Re-inserted at the end, so the oldest entry is the first one.
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { read, until: Date.now() + TTL_MS });
  }
}

const keyOf = (formId: string, userId: string, stepNumber: number) => `${formId}\n${userId}\n${stepNumber}`;
