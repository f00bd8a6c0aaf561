import type { RateLimits } from '../http/rateLimits.ts';
import { checksFor } from '../policy/authorize.ts';
import type { StepWriter } from '../domain/plans/saveStep.ts';
import type { UserRow } from '../storage/rows.ts';

/**
 * What a route hands each step save it makes (a save, a restore): the write checks for the actor,
 * decided again on every plan step the save reads, and the save rate limit per actor and plan.
 */
export function stepWriterFor(rateLimits: RateLimits, actor: UserRow, formId: string): StepWriter {
  return {
    actor,
    checks: checksFor(actor, ['changeAnswers', 'editStep']),
    limit: {
      counter: rateLimits.counter('save', `${actor.id}:${formId}`),
      judge: (count) => rateLimits.judge('save', count),
      storeFailed: (error) => rateLimits.storeFailed('save', error),
    },
  };
}
