import type { WrittenAnswers, Writer } from '../domain/events.ts';
import type { EventSubscriber } from '../events/dispatcher.ts';
import type { RealtimeEvents } from './events.ts';

const stepSaved = (write: WrittenAnswers, by: Writer) => ({
  stepKey: write.step.key,
  revisionCount: write.revisionCount,
  lastUpdated: write.lastUpdated.toISOString(),
  by: { userId: by.id, name: by.name },
});

/** Committed changes, as the events connected clients receive (docs/collaboration.md): to a plan's room or to one user. */
export function realtimeFanOut(realtime: RealtimeEvents): EventSubscriber {
  return {
    name: 'realtime fan-out',
    afterCommit: {
      'plan.statusChanged': ({ plan, to, action }) => realtime.toPlan(plan.id, 'status', { status: to, action }),
      'plan.reviewFlagsCleared': ({ formId, cleared }) => {
        for (const flag of cleared) realtime.toPlan(formId, 'flag', { stepKey: flag.stepKey, questionId: flag.questionId });
      },
      'plan.stepsFilled': ({ formId, by, steps }) => {
        for (const write of steps) realtime.toPlan(formId, 'step:saved', stepSaved(write, by));
      },
      'step.saved': ({ formId, by, write }) => realtime.toPlan(formId, 'step:saved', stepSaved(write, by)),
      'step.lockTaken': ({ formId, lock }) => realtime.lockChanged(formId, 'acquired', lock),
      'step.lockReleased': ({ formId, lock }) => realtime.lockChanged(formId, 'released', lock),
      'plan.presenceChanged': ({ formId, editors }) => realtime.toPlan(formId, 'presence', { editors }),
      'comment.created': ({ thread }) => realtime.commentChanged(thread),
      'comment.replied': ({ thread }) => realtime.commentChanged(thread),
      'comment.statusChanged': ({ thread }) => realtime.commentChanged(thread),
      'notification.created': ({ notification }) => realtime.notified(notification),
      'district.rolloverProgress': ({ userId, progress }) => realtime.toUser(userId, 'rollover', { progress }),
    },
  };
}
