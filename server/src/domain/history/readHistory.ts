import { and, count, desc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { answerRevisions, users } from '../../storage/schema.ts';
import type { AnswerRevisionRow } from '../../storage/rows.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import type { Authorized } from '../../policy/authorize.ts';

export interface HistoryQuery {
  stepKey?: string | undefined;
  questionId?: string | undefined;
  page: number;
  limit: number;
}

export interface HistoryPage {
  revisions: AnswerRevisionRow[];
  /** The names of everyone the page's revisions name. */
  names: Map<string, string>;
  total: number;
}

/**
 * A plan's answer history, newest first: one answer's, one step's or the whole plan's, limited to
 * the steps the caller may read (a section-limited share sees its steps' history only).
 */
export async function readAnswerHistory(db: Database, context: Authorized<PlanContext, 'readPlan'>, query: HistoryQuery): Promise<HistoryPage> {
  const { plan, access } = context;
  const filters: SQL[] = [eq(answerRevisions.formId, plan.id)];
  if (query.stepKey) filters.push(eq(answerRevisions.stepKey, query.stepKey));
  if (query.questionId) filters.push(eq(answerRevisions.questionId, query.questionId));
  if (!query.stepKey && access.readSections !== null) filters.push(inArray(answerRevisions.stepKey, access.readSections));
  const where = and(...filters);
  const [revisions, [totals]] = await Promise.all([
    db
      .select()
      .from(answerRevisions)
      .where(where)
      .orderBy(desc(answerRevisions.updatedAt), desc(answerRevisions.stepRevision))
      .limit(query.limit)
      .offset((query.page - 1) * query.limit),
    db.select({ total: count() }).from(answerRevisions).where(where),
  ]);
  const ids = [...new Set(revisions.flatMap((revision) => revision.authorIds))];
  const people = ids.length ? await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids)) : [];
  return { revisions, names: new Map(people.map((person) => [person.id, person.name])), total: totals?.total ?? 0 };
}

/** One revision of a plan's answers; undefined when the plan has none by that id. */
export async function findRevision(db: Database, formId: string, revisionId: string): Promise<AnswerRevisionRow | undefined> {
  const [revision] = await db
    .select()
    .from(answerRevisions)
    .where(and(eq(answerRevisions.formId, formId), eq(answerRevisions.id, revisionId)))
    .limit(1);
  return revision;
}
