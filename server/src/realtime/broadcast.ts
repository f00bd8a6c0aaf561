import type { BaseServices } from '../services.ts';
import { presentComment, presentNotification } from '../presenters/comment.ts';
import type { RealtimeEvents } from './events.ts';
import { LockExpiryWatcher } from './lockExpiryWatcher.ts';
import { PlanFollowers } from './planFollowers.ts';
import { planRoom, userRoom } from './rooms.ts';
import type { SocketServer } from './socketServer.ts';

/** Events to plan rooms and user rooms; `accessChanged` is the access recheck's. */
export type Broadcast = Omit<RealtimeEvents, 'accessChanged'> & { stop(): void };

/**
 * Emits the server's events to the sockets that follow them, on every process: a plan's events to
 * its room (only when someone anywhere follows the plan), a user's to theirs, and lock expiries it
 * notices itself.
 */
export function startBroadcast({ io, subscriber, shared }: SocketServer, { kv, logger }: BaseServices): Broadcast {
  const followers = new PlanFollowers(io, logger, shared);
  // Room changes of other processes arrive on the subscriber's connection: unheard while it is down.
  subscriber?.on('ready', () => followers.sync());
  subscriber?.on('close', () => followers.unsure());

  const toPlan: RealtimeEvents['toPlan'] = (formId, event, payload) => {
    // Most autosaves concern a plan nobody has open: nothing to serialize or publish.
    if (followers.isFollowed(formId)) io.to(planRoom(formId)).emit(event, { formId, ...payload });
  };
  const toUser: RealtimeEvents['toUser'] = (userId, event, payload) => {
    io.to(userRoom(userId)).emit(event, payload);
  };
  const lockWatcher = new LockExpiryWatcher(kv, logger, (formId, lock) =>
    toPlan(formId, 'lock', { stepKey: lock.stepKey, state: 'expired', lockedBy: lock.lockedBy }),
  );

  return {
    toPlan,
    toUser,
    lockChanged: (formId, state, lock) => {
      if (state === 'acquired') lockWatcher.watch(formId, lock);
      else lockWatcher.unwatch(formId, lock.stepKey);
      toPlan(formId, 'lock', { stepKey: lock.stepKey, state, lockedBy: lock.lockedBy, ...(state === 'acquired' ? { expiresAt: lock.expiresAt } : {}) });
    },
    commentChanged: (thread) => toPlan(thread.comment.formId, 'comment', { comment: presentComment(thread) }),
    notified: (notification) => toUser(notification.userId, 'notification', { notification: presentNotification(notification) }),
    stop: () => {
      lockWatcher.stop();
      followers.stop();
    },
  };
}
