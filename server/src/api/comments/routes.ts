import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.ts';
import { authOf, callerOf } from '../../auth/gate.ts';
import { parse, pathId } from '../../http/validate.ts';
import { loadPlan } from '../../domain/plans/loadPlan.ts';
import { createComment } from '../../domain/comments/createComment.ts';
import { setCommentStatus } from '../../domain/comments/setCommentStatus.ts';
import { replyToThread } from '../../domain/comments/replyToThread.ts';
import { loadThreads } from '../../domain/comments/threads.ts';
import { mentionCandidates } from '../../domain/comments/mentions.ts';
import { presentComment } from '../../presenters/comment.ts';
import { authorizePlan } from '../../policy/authorize.ts';
import { loadPlanFor } from '../../auth/loadPlanFor.ts';
import {
  commentActionSchema,
  commentResponseSchema,
  createCommentSchema,
  createReplySchema,
  mentionListSchema,
  mentionQuerySchema,
  threadListQuerySchema,
  threadListSchema,
  type CommentResponse,
  type MentionList,
  type ThreadList,
} from '@csp/shared/api/forms';
import { operations } from '../../http/operation.ts';

const operation = operations('Plan comments', {
  list: {
    summary: 'The plan’s threads',
    description: 'Review threads the caller may read (a section-limited share: its steps’ threads and the plan’s), oldest first, each with its replies.',
    query: threadListQuerySchema,
    responses: { 200: threadListSchema },
  },
  create: {
    summary: 'Start a review thread on the plan, a step or a question',
    description:
      'Super Admins. `stepKey` alone anchors the thread to a step, `questionId` to a question; neither, to the whole plan. `mentions` are ids of people who can read it.',
    body: createCommentSchema,
    responses: { 200: commentResponseSchema },
  },
  setStatus: {
    summary: 'Mark a thread read or fixed (resolved)',
    description: 'The plan’s editors and Super Admins. `fixed` resolves the thread.',
    body: commentActionSchema,
    responses: { 200: commentResponseSchema },
  },
  reply: {
    summary: 'Reply in a thread',
    description: 'The plan’s editors and Super Admins. A reply reopens a resolved thread.',
    body: createReplySchema,
    responses: { 200: commentResponseSchema },
  },
  resolve: { summary: 'Resolve a thread', description: 'The plan’s editors and Super Admins; the same as `fixed`.', responses: { 200: commentResponseSchema } },
  reopen: { summary: 'Reopen a resolved thread', description: 'The plan’s editors and Super Admins.', responses: { 200: commentResponseSchema } },
  mentions: {
    summary: 'People one may mention on the plan',
    description: 'Active people who can read the plan whose name or e-mail starts with `q`; for the plan’s editors and Super Admins.',
    query: mentionQuerySchema,
    responses: { 200: mentionListSchema },
  },
});

type PathContext = Context & { params: Record<string, string | undefined> };

/** Review threads: a comment (the spec's routes) with replies, resolve and reopen, mentions. */
export function commentsRoutes(services: Services): Router {
  const router = new Router({ prefix: '/forms/:id' });
  const db = services.storage.db;
  const planOf = (ctx: PathContext) => loadPlan(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'));
  const commentIdOf = (ctx: PathContext) => pathId(ctx.params.commentId, 'Comment not found');

  router.get('/comments', operation.list, async (ctx) => {
    const context = await loadPlanFor(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'), ['readPlan']);
    const { status } = parse(threadListQuerySchema, ctx.query);
    ctx.body = { threads: (await loadThreads(db, context, status)).map(presentComment) } satisfies ThreadList;
  });

  router.post('/comments', operation.create, async (ctx) => {
    const context = await planOf(ctx);
    const input = parse(createCommentSchema, ctx.request.body);
    const caller = callerOf(ctx);
    const thread = await createComment(services, caller, authorizePlan(caller.auth.actor, context, ['commentOnPlan', 'writePlan']), input);
    ctx.body = { success: true, comment: presentComment(thread) } satisfies CommentResponse;
  });

  router.put('/comments/:commentId', operation.setStatus, async (ctx) => {
    const context = await planOf(ctx);
    const commentId = commentIdOf(ctx);
    const { action } = parse(commentActionSchema, ctx.request.body);
    const caller = callerOf(ctx);
    const thread = await setCommentStatus(services, caller, authorizePlan(caller.auth.actor, context, ['setCommentStatus', 'writePlan']), commentId, action);
    ctx.body = { success: true, comment: presentComment(thread) } satisfies CommentResponse;
  });

  router.post('/comments/:commentId/replies', operation.reply, async (ctx) => {
    const context = await planOf(ctx);
    const commentId = commentIdOf(ctx);
    const input = parse(createReplySchema, ctx.request.body);
    const caller = callerOf(ctx);
    const thread = await replyToThread(services, caller, authorizePlan(caller.auth.actor, context, ['replyToThread', 'writePlan']), commentId, input);
    ctx.body = { success: true, comment: presentComment(thread) } satisfies CommentResponse;
  });

  for (const [path, status, declared] of [
    ['/comments/:commentId/resolve', 'fixed', operation.resolve],
    ['/comments/:commentId/reopen', 'open', operation.reopen],
  ] as const) {
    router.post(path, declared, async (ctx) => {
      const caller = callerOf(ctx);
      const context = await planOf(ctx);
      const commentId = commentIdOf(ctx);
      const thread = await setCommentStatus(services, caller, authorizePlan(caller.auth.actor, context, ['setCommentStatus', 'writePlan']), commentId, status);
      ctx.body = { success: true, comment: presentComment(thread) } satisfies CommentResponse;
    });
  }

  router.get('/mentions', operation.mentions, async (ctx) => {
    const auth = authOf(ctx);
    const context = await loadPlanFor(services, auth.actor, pathId(ctx.params.id, 'Plan not found'), ['readPlan', 'replyToThread']);
    const { q } = parse(mentionQuerySchema, ctx.query);
    const people = await mentionCandidates(db, context, q);
    ctx.body = { people: people.map((person) => ({ _id: person.id, name: person.name, email: person.email })) } satisfies MentionList;
  });

  return router;
}
