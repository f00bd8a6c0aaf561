import type { DomainEvent, EventOf } from '../domain/events.ts';
import type { EventSubscriber } from '../events/dispatcher.ts';
import type { AccessScope } from '../auth/accessScope.ts';

const thePlan = ({ formId }: { formId: string }): AccessScope => ({ formId });
const everyone = (): AccessScope => ({ all: true });

/**
 * The one place that decides which changes may change someone's access, and whose: a plan's
 * sharing, ownership, details, override or deletion concern that plan's connections; a year's
 * archive flag and a rollover every connection; previews and sign-outs their sessions; changes to
 * users those users. Every other event leaves open connections as they are.
 */
const ACCESS_SCOPES: { [T in DomainEvent['type']]?: (event: EventOf<T>) => AccessScope } = {
  // A plan with the district holds still: its editors' live documents turn read-only (and back when it is returned).
  'plan.statusChanged': ({ plan }) => ({ formId: plan.id }),
  'plan.detailsChanged': thePlan,
  'plan.deleted': thePlan,
  'plan.sharedWithUsers': thePlan,
  'plan.unshared': thePlan,
  'plan.emailSharesSet': thePlan,
  'plan.liveOverrideSet': thePlan,
  'plan.ownershipTransferred': thePlan,
  'schoolYear.archiveChanged': everyone,
  'district.rolledOver': everyone,
  'session.previewChanged': ({ sessionId }) => ({ sessionIds: [sessionId] }),
  'sessions.ended': ({ sessions }) => ({ sessionIds: sessions.map((session) => session.id) }),
  'users.changed': ({ userIds }) => ({ userIds }),
};

/** After such a change commits, the open connections in its scope are checked again on every process. */
export function accessRevalidation(revalidate: (scope: AccessScope) => void): EventSubscriber {
  const afterCommit = Object.fromEntries(
    Object.entries(ACCESS_SCOPES).map(([type, scopeOf]) => [type, (event: DomainEvent) => revalidate((scopeOf as (event: DomainEvent) => AccessScope)(event))]),
  );
  return { name: 'access revalidation', afterCommit };
}
