import { eq } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { plans } from '../../storage/schema.ts';
import type { PlanRow, Thread } from '../../storage/rows.ts';
import type { EventSubscriber } from '../../events/dispatcher.ts';
import type { EventOf, RecordEvent } from '../events.ts';
import type { BankCatalog } from '../questionBank/bankCatalog.ts';
import { storedAnchorOf, threadLink } from '../comments/threadAnchor.ts';
import { editorIdsOf, reviewerIds, userIdsByEmail } from './planPeople.ts';
import { mailPlanOf, notify, planLabelOf, planLink, type Notice } from './notify.ts';
import { newId } from '../../storage/ids.ts';

async function planById(tx: Database, formId: string): Promise<PlanRow> {
  const [plan] = await tx.select().from(plans).where(eq(plans.id, formId)).limit(1);
  return plan!;
}

/**
 * What a move tells people: a submission goes to the reviewers, a review decision to the school's
 * editors. Submission, approval and return are e-mailed; the start of a review is only shown in the app.
 */
function statusNotice({ plan, to, comment, by }: EventOf<'plan.statusChanged'>): Notice {
  const label = planLabelOf(plan);
  const link = planLink(plan.id);
  const base = { eventKey: `status:${plan.id}:${to}:${newId()}`, formId: plan.id, link };
  // The reviewer's words stay in the app: e-mail never carries them (they may name students).
  const said = comment ? `: ${comment}` : '.';
  const mailOf = (type: 'plan_submitted' | 'plan_approved' | 'plan_returned') => ({ type, plan: mailPlanOf(plan), actorName: by.name, link });
  switch (to) {
    case 'submitted':
      return { ...base, kind: 'submitted', message: `${by.name} submitted the ${label} for review.`, mail: mailOf('plan_submitted') };
    case 'approved':
      return { ...base, kind: 'review', message: `${by.name} approved the ${label}${said}`, mail: mailOf('plan_approved') };
    case 'rejected':
      return { ...base, kind: 'review', message: `${by.name} returned the ${label} for changes${said}`, mail: mailOf('plan_returned') };
    default:
      return { ...base, kind: 'review', message: `${by.name} put the ${label} under review${said}` };
  }
}

/** People a plan was just shared with. */
async function notifyShared(
  tx: Database,
  record: RecordEvent,
  formId: string,
  by: { id: string; name: string },
  userIds: string[],
  permission: 'view' | 'edit',
) {
  if (userIds.length === 0) return;
  const plan = await planById(tx, formId);
  const link = planLink(plan.id);
  const can = permission === 'edit' ? 'you can edit it' : 'you can read it';
  await notify(
    tx,
    record,
    {
      eventKey: `shared:${plan.id}:${newId()}`,
      formId: plan.id,
      kind: 'shared',
      message: `${by.name} shared the ${planLabelOf(plan)} with you (${can}).`,
      link,
      mail: { type: 'plan_shared', plan: mailPlanOf(plan), actorName: by.name, permission, link },
    },
    userIds,
    by.id,
  );
}

/**
 * A comment or a reply: the people it mentions hear of it as a mention (instead of the plain
 * notice); the plan's editors of the thread's step, and the thread's earlier writers, hear of it
 * ("Dana Whitfield commented on 2c. Who is the designated liaison…"), linking to the question.
 */
async function notifyThread(tx: Database, record: RecordEvent, banks: BankCatalog, thread: Thread, reply: EventOf<'comment.replied'>['reply'] | null) {
  const { comment } = thread;
  const plan = await planById(tx, comment.formId);
  const anchor = storedAnchorOf(await banks.resolve(plan.questionBankVersion), comment.stepKey, comment.questionId);
  const link = threadLink(plan.id, anchor, comment.id);
  const actor = reply ? { id: reply.authorId, name: reply.authorName } : { id: comment.authorId, name: comment.authorName };
  const eventId = reply?.id ?? comment.id;
  const about = { plan: mailPlanOf(plan), actorName: actor.name, where: anchor.where, link };
  const mentioned = reply?.mentions ?? comment.mentions;
  await notify(
    tx,
    record,
    {
      eventKey: `mention:${eventId}`,
      formId: plan.id,
      kind: 'mention',
      message: `${actor.name} mentioned you on ${anchor.where.full}`,
      link,
      mail: { type: 'mention', ...about },
    },
    mentioned,
    actor.id,
  );
  const type = reply ? 'reply' : 'comment';
  const earlierWriters = reply ? [comment.authorId, ...thread.replies.filter((r) => r.id !== reply.id).map((r) => r.authorId)] : [];
  const told = [...(await editorIdsOf(tx, plan.id, anchor.stepKey)), ...earlierWriters].filter((id): id is string => id !== null && !mentioned.includes(id));
  await notify(
    tx,
    record,
    {
      eventKey: `${type}:${eventId}`,
      formId: plan.id,
      kind: type,
      message: `${actor.name} ${reply ? 'replied on' : 'commented on'} ${anchor.where.full}`,
      link,
      mail: { type, ...about },
    },
    told,
    actor.id,
  );
}

/**
 * The notifications a plan's changes give people, written in the change's transaction (each
 * recorded as an event, with its e-mail): status moves, shares, ownership transfers, review
 * threads and their replies.
 */
export function planNotifications(banks: BankCatalog): EventSubscriber {
  return {
    name: 'plan notifications',
    inTransaction: {
      'plan.statusChanged': async (event, tx, record) => {
        const recipients = event.action === 'submit' ? await reviewerIds(tx) : await editorIdsOf(tx, event.plan.id);
        await notify(tx, record, statusNotice(event), recipients, event.by.id);
        // The plan's marker that its people were pinged about the review.
        if (event.action === 'review') await tx.update(plans).set({ notificationSent: true }).where(eq(plans.id, event.plan.id));
      },
      'plan.sharedWithUsers': ({ formId, by, userIds, permission }, tx, record) => notifyShared(tx, record, formId, by, userIds, permission),
      // An e-mail share lets its people edit; only the addresses new to it are told.
      'plan.emailSharesSet': async ({ formId, by, added }, tx, record) => notifyShared(tx, record, formId, by, await userIdsByEmail(tx, added), 'edit'),
      'plan.ownershipTransferred': async ({ formId, transfer, by }, tx, record) => {
        const plan = await planById(tx, formId);
        const link = planLink(plan.id);
        await notify(
          tx,
          record,
          {
            eventKey: `ownership:${plan.id}:${transfer.transferredAt}`,
            formId: plan.id,
            kind: 'ownership',
            message: `${by.name} made you the owner of the ${planLabelOf(plan)}.`,
            link,
            mail: { type: 'ownership_transferred', plan: mailPlanOf(plan), actorName: by.name, link },
          },
          [transfer.toUserId],
          by.id,
        );
      },
      'comment.created': ({ thread }, tx, record) => notifyThread(tx, record, banks, thread, null),
      'comment.replied': ({ thread, reply }, tx, record) => notifyThread(tx, record, banks, thread, reply),
    },
  };
}
