import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { authOf } from '../../auth/gate.ts';
import { parse, pathId } from '../../http/validate.ts';
import { loadPlan } from '../../domain/plans/loadPlan.ts';
import { createComment } from '../../domain/comments/createComment.ts';
import { setCommentStatus } from '../../domain/comments/setCommentStatus.ts';
import { presentComment } from '../../presenters/comment.ts';
import { commentActionSchema, commentResponseSchema, createCommentSchema, type CommentResponse } from '@csp/shared/api/forms';
import { operations } from '../../http/operation.ts';

const operation = operations('Plan comments', {
  create: { summary: 'Comment on a plan or one of its questions', body: createCommentSchema, responses: { 200: commentResponseSchema } },
  setStatus: { summary: 'Mark a comment read or fixed', body: commentActionSchema, responses: { 200: commentResponseSchema } },
});

export function commentsRoutes(services: Services): Router {
  const router = new Router({ prefix: '/forms/:id/comments' });

  router.post('/', operation.create, async (ctx) => {
    const auth = authOf(ctx);
    const context = await loadPlan(services, auth.actor, pathId(ctx.params.id, 'Plan not found'));
    const input = parse(createCommentSchema, ctx.request.body);
    const comment = await createComment(services, { auth, ip: ctx.ip }, context, input);
    ctx.body = { success: true, comment: presentComment(comment) } satisfies CommentResponse;
  });

  router.put('/:commentId', operation.setStatus, async (ctx) => {
    const auth = authOf(ctx);
    const context = await loadPlan(services, auth.actor, pathId(ctx.params.id, 'Plan not found'));
    const commentId = pathId(ctx.params.commentId, 'Comment not found');
    const { action } = parse(commentActionSchema, ctx.request.body);
    const comment = await setCommentStatus(services, { auth, ip: ctx.ip }, context, commentId, action);
    ctx.body = { success: true, comment: presentComment(comment) } satisfies CommentResponse;
  });

  return router;
}
