import type { DomainEvent, DomainEvents, EventOf, PublishedEvent, RecordEvent, RecordedEvent } from '../domain/events.ts';
import type { Database } from '../storage/database.ts';
import type { Logger } from '../logger.ts';

/**
 * One concern that reacts to domain events, with a handler per event type it cares about.
 *
 * - `inTransaction` handlers run inside the transaction that recorded the event, before it
 *   commits, with that transaction: what they write commits with the change, and a handler that
 *   throws rolls the change back. For records that must exist exactly when the change does (an
 *   outbox row, an answer's history, the notifications a change gives people). A handler may
 *   record events of its own (a notification it wrote): they reach every subscriber like the rest.
 *   Only recorded events have this phase.
 * - `afterCommit` handlers run once the change is committed: delivery to connected clients, live
 *   documents, re-checking open connections. A failure is logged; the change stands.
 */
export interface EventSubscriber {
  name: string;
  inTransaction?: { [T in RecordedEvent['type']]?: (event: EventOf<T>, tx: Database, record: RecordEvent) => Promise<void> };
  afterCommit?: { [T in DomainEvent['type']]?: (event: EventOf<T>) => void | Promise<void> };
}

type InTransactionHandler = (event: RecordedEvent, tx: Database, record: RecordEvent) => Promise<void>;
type AfterCommitHandler = (event: DomainEvent) => void | Promise<void>;

/**
 * The one path side effects take (docs/architecture.md, "Domain events"): domain functions record
 * events inside their transaction, and this delivers them to the subscribers in the order they
 * subscribed, each event's in-transaction handlers before the commit and its after-commit handlers
 * after it. `transaction` and `publish` resolve once every after-commit handler has finished.
 */
export class EventDispatcher implements DomainEvents {
  private readonly subscribers: EventSubscriber[] = [];
  private readonly db: Database;
  private readonly logger: Logger;

  constructor(db: Database, logger: Logger) {
    this.db = db;
    this.logger = logger;
  }

  subscribe(subscriber: EventSubscriber): void {
    this.subscribers.push(subscriber);
  }

  async transaction<T>(work: (tx: Database, record: RecordEvent) => Promise<T>): Promise<T> {
    const recorded: RecordedEvent[] = [];
    let open = true;
    const record: RecordEvent = (event) => {
      if (!open) throw new Error(`${event.type} recorded after its transaction ended`);
      recorded.push(event);
    };
    let result: T;
    try {
      result = await this.db.transaction(async (tx) => {
        const value = await work(tx, record);
        // Events the handlers record join the list, and are handled in their turn.
        for (let index = 0; index < recorded.length; index++) {
          const event = recorded[index]!;
          for (const subscriber of this.subscribers) await (subscriber.inTransaction?.[event.type] as InTransactionHandler | undefined)?.(event, tx, record);
        }
        return value;
      });
    } finally {
      open = false;
    }
    for (const event of recorded) await this.deliver(event);
    return result;
  }

  publish(event: PublishedEvent): Promise<void> {
    return this.deliver(event);
  }

  private async deliver(event: DomainEvent): Promise<void> {
    for (const subscriber of this.subscribers) {
      const handler = subscriber.afterCommit?.[event.type] as AfterCommitHandler | undefined;
      if (!handler) continue;
      try {
        await handler(event);
      } catch (error) {
        this.logger.error({ err: error, event: event.type, subscriber: subscriber.name }, 'event subscriber failed after commit');
      }
    }
  }
}
