import { and, asc, eq, inArray, ne, type SQL } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { commentReplies, comments } from '../../storage/schema.ts';
import type { CommentRow, Thread } from '../../storage/rows.ts';
import { can } from '../../policy/index.ts';
import { notFound } from '../../errors.ts';
import type { PlanContext } from '../plans/loadPlan.ts';

export type ThreadFilter = 'open' | 'resolved' | 'all';

const STATUS_OF: Record<ThreadFilter, SQL | undefined> = {
  open: ne(comments.status, 'fixed'),
  resolved: eq(comments.status, 'fixed'),
  all: undefined,
};

async function withReplies(db: Database, rows: CommentRow[]): Promise<Thread[]> {
  if (rows.length === 0) return [];
  const replies = await db
    .select()
    .from(commentReplies)
    .where(
      inArray(
        commentReplies.commentId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(asc(commentReplies.createdAt), asc(commentReplies.id));
  return rows.map((comment) => ({ comment, replies: replies.filter((reply) => reply.commentId === comment.id) }));
}

/**
 * A plan's threads the caller may read, oldest first: those on the plan as a whole, and those on
 * steps the caller reads (a section-limited share sees only its steps' threads).
 */
export async function loadThreads(db: Database, context: PlanContext, filter: ThreadFilter): Promise<Thread[]> {
  const rows = await db
    .select()
    .from(comments)
    .where(and(eq(comments.formId, context.plan.id), STATUS_OF[filter]))
    .orderBy(asc(comments.createdAt), asc(comments.id));
  return withReplies(
    db,
    rows.filter((row) => readsThread(context, row)),
  );
}

/** Whether the caller may read a thread: its step (if it has one) is readable to them. */
const readsThread = (context: PlanContext, comment: Pick<CommentRow, 'stepKey'>) =>
  comment.stepKey === null ? can(context.actor, 'readPlan', context) : can(context.actor, 'readStep', { plan: context, stepKey: comment.stepKey });

/** One thread of the plan; 404 when it is not there or the caller cannot read it. */
export async function loadThread(db: Database, context: PlanContext, commentId: string): Promise<Thread> {
  const [row] = await db
    .select()
    .from(comments)
    .where(and(eq(comments.id, commentId), eq(comments.formId, context.plan.id)))
    .limit(1);
  if (!row || !readsThread(context, row)) throw notFound('Comment not found');
  const [thread] = await withReplies(db, [row]);
  return thread!;
}
