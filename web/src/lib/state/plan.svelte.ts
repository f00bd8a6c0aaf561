import {
  answersOpenIn,
  requiredProgress,
  unansweredRequired,
  type NeedsUpdateFlag,
  type PlanStatus,
  type Question,
  type Step,
  type StepAnswers,
} from '@csp/shared';
import type { Comment, FullPlan, StepLock, StepResponse } from '@csp/shared/api/forms';
import type { Deadline } from '@csp/shared';
import { commentEventSchema, flagEventSchema, lockEventSchema, statusEventSchema, stepSavedEventSchema } from '@csp/shared/api/realtime';
import { api } from '#lib/api/index.ts';
import { realtime } from '#lib/realtime/socket.svelte.ts';
import { PlanCollab } from '#lib/realtime/collab.ts';
import { PresenceState } from './presence.svelte.ts';
import { ReviewThreads } from './reviewThreads.svelte.ts';

export interface StoredStep {
  completed: boolean;
  data: StepAnswers;
  revisionCount: number;
  lastUpdated: string | null;
}

export interface PlanStepView {
  key: string;
  number: number;
  title: string;
  step: Step;
  completed: boolean;
  canRead: boolean;
  canEdit: boolean;
  flags: NeedsUpdateFlag[];
  /** Required questions a person can see and has not answered yet. */
  unanswered: Question[];
  /** The step lock when someone else holds it and is on the step now ("being edited"). */
  lockedByOther: StepLock | null;
  dueDate: string | null;
}

/** Why a plan cannot be changed by the caller, in words, or null when it can. */
/** Why a plan cannot be changed: its year is archived, it is with the district (submitted, under review, approved), or the person may only read it. */
export type ReadOnlyReason = 'archived' | 'with-district' | 'view-only' | null;

/**
 * One open plan: its record, its bank, stored answers per step, locks, presence and comments,
 * kept current by the realtime gateway's events (nothing is polled). Created by the plan layout
 * and shared with its pages through context.
 */
export class PlanState {
  plan = $state<FullPlan>() as FullPlan;
  steps = $state.raw<Step[]>([]);
  stored = $state<Record<string, StoredStep>>({});
  locks = $state<Record<string, StepLock>>({});
  comments = $state<Comment[]>([]);
  deadlines = $state.raw<Deadline[]>([]);
  readonly presence: PresenceState;
  readonly me: string;

  private readonly unsubscribe: (() => void)[] = [];
  #collab: PlanCollab | null = null;
  #threads: ReviewThreads | null = null;
  // Timers only, never rendered: a plain Map on purpose.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  private readonly refreshTimers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(plan: FullPlan, steps: Step[], deadlines: Deadline[], me: string) {
    this.plan = plan;
    this.steps = steps;
    this.stored = { ...plan.formData };
    this.comments = plan.comments;
    this.deadlines = deadlines;
    this.me = me;
    this.presence = new PresenceState(plan._id);
    const mine = (formId: string) => formId === plan._id;
    this.unsubscribe.push(
      realtime.on('lock', lockEventSchema, (event) => {
        if (!mine(event.formId)) return;
        if (event.state === 'acquired') {
          this.locks[event.stepKey] = {
            stepKey: event.stepKey,
            lockedBy: event.lockedBy,
            lockedAt: '', // the event does not carry it; nothing shows it
            expiresAt: event.expiresAt ?? '',
          };
        } else delete this.locks[event.stepKey];
      }),
      realtime.on('comment', commentEventSchema, ({ formId, comment }) => {
        if (mine(formId)) this.upsertComment(comment);
      }),
      realtime.on('status', statusEventSchema, ({ formId, status }) => {
        if (!mine(formId)) return;
        this.plan.status = status;
        // What the move changed beside the status: the reason of a return, the attestation, who may edit now.
        void api
          .plan(formId)
          .then((fresh) => {
            if (fresh.status !== this.plan.status) return;
            this.plan.reviewComment = fresh.reviewComment;
            this.plan.attestation = fresh.attestation;
            this.plan.userPermission = fresh.userPermission;
          })
          .catch(() => {});
      }),
      realtime.on('flag', flagEventSchema, ({ formId, stepKey, questionId }) => {
        if (mine(formId)) this.plan.needsUpdate = this.plan.needsUpdate.filter((flag) => !(flag.questionId === questionId && flag.stepKey === stepKey));
      }),
      realtime.on('step:saved', stepSavedEventSchema, ({ formId, stepKey, revisionCount }) => {
        if (mine(formId) && (this.stored[stepKey]?.revisionCount ?? -1) < revisionCount) this.scheduleRefresh(stepKey);
      }),
      // Lock events missed while the socket was away (a laptop asleep) would leave stale notices: read them again.
      realtime.onJoined(plan._id, () => void this.readLocks()),
    );
  }

  /** Joins the plan's room; each accepted join reads the locks (events keep them current from then on). */
  async connect(stepKey: string | null): Promise<void> {
    await realtime.join(this.plan._id, stepKey);
  }

  private async readLocks(): Promise<void> {
    if (!this.plan.userPermission.canSeePresence) return;
    const { locks } = await api.locks(this.plan._id).catch(() => ({ locks: [] }));
    this.locks = Object.fromEntries(locks.map((lock) => [lock.stepKey, lock]));
  }

  /** Follows the plan's events from outside it (a dashboard): presence, statuses, saves, without appearing on it. */
  async watch(): Promise<void> {
    await realtime.watch(this.plan._id);
    if (!this.plan.userPermission.canSeePresence) return;
    await this.presence.read(() => api.editors(this.plan._id).then((response) => response.editors)).catch(() => {});
  }

  get id(): string {
    return this.plan._id;
  }

  /** The plan's one collaboration socket: every step document it opens shares it. */
  get collab(): PlanCollab {
    this.#collab ??= new PlanCollab(this.me);
    return this.#collab;
  }

  /** The plan's review threads, open and resolved: read the first time a page shows them. */
  get threads(): ReviewThreads {
    this.#threads ??= new ReviewThreads(this.plan._id, this.comments);
    return this.#threads;
  }

  readonly permission = $derived(this.plan.userPermission);

  readonly readOnlyReason: ReadOnlyReason = $derived(
    this.plan.locked && !this.plan.allowEditsWhenArchived
      ? 'archived'
      : !answersOpenIn(this.plan.status)
        ? 'with-district'
        : !this.plan.userPermission.canEdit
          ? 'view-only'
          : null,
  );

  readonly views: PlanStepView[] = $derived(
    this.steps.map((step, index) => {
      const stored = this.stored[step.key];
      const permission = this.plan.userPermission;
      const lock = this.locks[step.key];
      return {
        key: step.key,
        number: index + 1,
        title: step.title,
        step,
        completed: this.plan.completedSteps.includes(step.key),
        canRead: permission.canRead && (permission.readSections === null || permission.readSections.includes(step.key)),
        canEdit: permission.canEdit && (permission.sections === null || permission.sections.includes(step.key)),
        flags: this.plan.needsUpdate.filter((flag) => flag.stepKey === step.key),
        unanswered: stored ? unansweredRequired(step, stored.data) : [],
        lockedByOther: lock && lock.lockedBy.userId !== this.me && this.presence.isOn(lock.lockedBy.userId, step.key) ? lock : null,
        dueDate: this.deadlines.find((deadline) => deadline.stepKey === step.key)?.dueDate ?? null,
      };
    }),
  );

  readonly completedCount = $derived(this.views.filter((view) => view.completed).length);
  readonly unansweredCount = $derived(this.views.reduce((sum, view) => sum + view.unanswered.length, 0));
  /** Visible required questions of the whole plan and how many are answered (a dashboard's progress). */
  readonly progress = $derived(requiredProgress(this.steps, this.stored));
  readonly openComments = $derived(this.comments.filter((comment) => comment.status === 'open').length);

  view(stepNumber: number): PlanStepView | undefined {
    return this.views[stepNumber - 1];
  }

  /** A step the caller saved: the answer is the new record. */
  applySaved(response: StepResponse): void {
    // An answer that overtook a newer one (a refresh read before our own save returned) is old news.
    if ((this.stored[response.stepKey]?.revisionCount ?? -1) > response.revisionCount) return;
    this.stored[response.stepKey] = {
      completed: response.stepData.completed,
      data: response.stepData.data,
      revisionCount: response.revisionCount,
      lastUpdated: response.lastUpdated,
    };
    this.markCompleted(response.stepKey, response.stepData.completed);
  }

  private markCompleted(stepKey: string, completed: boolean): void {
    const has = this.plan.completedSteps.includes(stepKey);
    if (completed && !has) this.plan.completedSteps = this.steps.map((s) => s.key).filter((key) => key === stepKey || this.plan.completedSteps.includes(key));
    if (!completed && has) this.plan.completedSteps = this.plan.completedSteps.filter((key) => key !== stepKey);
  }

  /** Someone saved a step: read it once (coalesced), so completion and summaries stay true. */
  private scheduleRefresh(stepKey: string): void {
    clearTimeout(this.refreshTimers.get(stepKey));
    this.refreshTimers.set(
      stepKey,
      setTimeout(() => {
        this.refreshTimers.delete(stepKey);
        const number = this.steps.findIndex((step) => step.key === stepKey) + 1;
        if (number > 0 && this.views[number - 1]?.canRead)
          void api.step(this.id, number).then(
            (response) => this.applySaved(response),
            () => {},
          );
      }, 500),
    );
  }

  upsertComment(comment: Comment): void {
    const index = this.comments.findIndex((existing) => existing._id === comment._id);
    if (comment.status === 'fixed') {
      if (index >= 0) this.comments.splice(index, 1);
    } else if (index >= 0) this.comments[index] = comment;
    else this.comments.push(comment);
  }

  setStatus(status: PlanStatus): void {
    this.plan.status = status;
  }

  destroy(): void {
    for (const stop of this.unsubscribe) stop();
    for (const timer of this.refreshTimers.values()) clearTimeout(timer);
    this.presence.destroy();
    this.#collab?.destroy();
    this.#threads?.destroy();
    realtime.leave(this.plan._id);
    realtime.unwatch(this.plan._id);
  }
}
