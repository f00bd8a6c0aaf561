import type { Comment } from '@csp/shared/api/forms';
import { commentEventSchema } from '@csp/shared/api/realtime';
import { api } from '#lib/api/index.ts';
import { realtime } from '#lib/realtime/socket.svelte.ts';

/** Where a thread is: a question (with its step), a step (`questionId` null) or the whole plan (both null). */
export interface ThreadAnchor {
  stepKey: string | null;
  questionId: string | null;
}

/** A thread's replies, status and times only grow: of two copies, the later one is kept. */
const isNewer = (candidate: Comment, current: Comment) =>
  candidate.updatedAt > current.updatedAt || (candidate.updatedAt === current.updatedAt && candidate.replies.length >= current.replies.length);

/**
 * A plan's review threads, open and resolved, each with its replies: read once (and again after
 * each reconnect, for what was missed), then kept current by the gateway's `comment` events, which
 * carry the whole thread. Who may reply, resolve and reopen is the plan's `canDiscuss`; starting a
 * thread, its `canReview`.
 */
export class ReviewThreads {
  threads = $state<Comment[]>([]);
  loaded = $state(false);
  failed = $state(false);
  readonly #formId: string;
  readonly #stop: (() => void)[];
  #loading: Promise<void> | null = null;

  /** `known`: the open threads the plan's record already carries, shown until the full list arrives. */
  constructor(formId: string, known: Comment[]) {
    this.#formId = formId;
    this.threads = [...known];
    this.#stop = [
      realtime.on('comment', commentEventSchema, ({ formId, comment }) => {
        if (formId === this.#formId) this.upsert(comment);
      }),
      realtime.onJoined(formId, () => void this.load()),
    ];
    void this.load();
  }

  readonly open = $derived(this.threads.filter((thread) => thread.status !== 'fixed'));
  readonly resolved = $derived(this.threads.filter((thread) => thread.status === 'fixed'));

  /** The open and the resolved threads at one place, oldest first. */
  at({ stepKey, questionId }: ThreadAnchor): { open: Comment[]; resolved: Comment[] } {
    const here = this.threads
      .filter((thread) => thread.stepKey === stepKey && thread.questionId === questionId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    return { open: here.filter((thread) => thread.status !== 'fixed'), resolved: here.filter((thread) => thread.status === 'fixed') };
  }

  /** Open threads anywhere on a step (its questions' and its own): the step navigator's count. */
  openOnStep(stepKey: string): number {
    return this.open.filter((thread) => thread.stepKey === stepKey).length;
  }

  /** Reads every thread; a read already under way is shared. */
  load(): Promise<void> {
    this.#loading ??= this.#read().finally(() => (this.#loading = null));
    return this.#loading;
  }

  async #read(): Promise<void> {
    try {
      const { threads } = await api.threads(this.#formId);
      for (const thread of threads) this.upsert(thread);
      this.loaded = true;
      this.failed = false;
    } catch {
      this.failed = !this.loaded;
    }
  }

  upsert(thread: Comment): void {
    const index = this.threads.findIndex((existing) => existing._id === thread._id);
    if (index < 0) this.threads.push(thread);
    else if (isNewer(thread, this.threads[index]!)) this.threads[index] = thread;
  }

  async start(text: string, anchor: ThreadAnchor, mentions: string[]): Promise<Comment> {
    const { comment } = await api.createComment(
      this.#formId,
      text,
      { stepKey: anchor.stepKey ?? undefined, questionId: anchor.questionId ?? undefined },
      mentions,
    );
    this.upsert(comment);
    return comment;
  }

  async reply(threadId: string, text: string, mentions: string[]): Promise<void> {
    this.upsert((await api.reply(this.#formId, threadId, text, mentions)).comment);
  }

  async resolve(threadId: string): Promise<void> {
    this.upsert((await api.resolveThread(this.#formId, threadId)).comment);
  }

  async reopen(threadId: string): Promise<void> {
    this.upsert((await api.reopenThread(this.#formId, threadId)).comment);
  }

  async markRead(threadId: string): Promise<void> {
    this.upsert((await api.setCommentStatus(this.#formId, threadId, 'read')).comment);
  }

  destroy(): void {
    for (const stop of this.#stop) stop();
  }
}
