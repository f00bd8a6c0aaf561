import type { Socket } from 'socket.io';
import { planJoinSchema, planLeaveSchema, presenceStepSchema } from '@csp/shared/api/realtime';
import type { BaseServices } from '../services.ts';
import { conflict, invalidInput, notFound } from '../errors.ts';
import { can } from '../policy/index.ts';
import { authorize } from '../policy/authorize.ts';
import { loadPlan } from '../domain/plans/loadPlan.ts';
import { stepKeysOf } from '../domain/questionBank/bankCatalog.ts';
import type { Presence } from './presence.ts';
import { planRoom, presentRoom, socketDataOf, stepRoom } from './rooms.ts';
import { answer } from './socketReplies.ts';
import { currentActor, type SocketServer } from './socketServer.ts';

export interface PlanRooms {
  /** The socket leaves the plan; its step's lock and its user's presence follow. */
  leave(socket: Socket, formId: string): Promise<void>;
}

/**
 * What a connected socket asks (docs/collaboration.md): `plan:join` a plan's room (present on a
 * step, or watching), `presence:step` to move, `plan:leave`; a disconnect leaves every plan.
 */
export function startPlanRooms({ io }: SocketServer, services: BaseServices, presence: Presence): PlanRooms {
  const { logger } = services;

  async function leave(socket: Socket, formId: string) {
    const data = socketDataOf(socket);
    const watched = data.watching.delete(formId);
    const stepKey = data.plans.get(formId) ?? null;
    const present = data.plans.delete(formId);
    if (!watched && !present) return;
    await socket.leave(planRoom(formId));
    if (!present) return;
    await socket.leave(presentRoom(formId));
    if (stepKey) await socket.leave(stepRoom(formId, stepKey));
    await presence.settle(data.userId, formId);
    if (stepKey) await presence.releaseLockIfGone(data.userId, formId, stepKey);
  }

  io.on('connection', (socket) => {
    const data = socketDataOf(socket);

    answer(socket, 'plan:join', logger, async (raw, reply) => {
      const parsed = planJoinSchema.safeParse(raw);
      if (!parsed.success) throw invalidInput('Invalid request');
      const { formId, watch } = parsed.data;
      const actor = await currentActor(services, socket);
      const context = await loadPlan(services, actor, formId);
      authorize(actor, 'followPlan', context);
      const stepKey = parsed.data.stepKey ?? null;
      if (stepKey && !stepKeysOf(await services.banks.resolve(context.plan.questionBankVersion)).includes(stepKey)) throw notFound('Unknown step');
      if (watch) {
        await socket.join(planRoom(formId));
        data.watching.add(formId);
        return reply({ ok: true });
      }
      await socket.join([planRoom(formId), presentRoom(formId)]);
      const left = await presence.placeOnStep(socket, formId, stepKey);
      reply({ ok: true, ...(can(actor, 'seePresence', context) ? await presence.announce(formId, actor, stepKey) : {}) });
      if (left) await presence.releaseLockIfGone(data.userId, formId, left);
    });

    answer(socket, 'presence:step', logger, async (raw, reply) => {
      const parsed = presenceStepSchema.safeParse(raw);
      if (!parsed.success) throw invalidInput('Invalid request');
      const { formId, stepKey } = parsed.data;
      if (!data.plans.has(formId)) throw conflict('Join the plan first');
      const actor = await currentActor(services, socket);
      const left = await presence.placeOnStep(socket, formId, stepKey);
      reply({ ok: true, ...(await presence.announce(formId, actor, stepKey)) });
      if (left) await presence.releaseLockIfGone(data.userId, formId, left);
    });

    answer(socket, 'plan:leave', logger, async (raw, reply) => {
      const parsed = planLeaveSchema.safeParse(raw);
      if (!parsed.success) throw invalidInput('Invalid request');
      await leave(socket, parsed.data.formId);
      reply({ ok: true });
    });

    socket.on('disconnect', () => {
      for (const formId of data.plans.keys()) {
        leave(socket, formId).catch((error: unknown) => logger.error({ err: error, formId }, 'leaving a plan on disconnect failed'));
      }
    });
  });

  return { leave };
}
