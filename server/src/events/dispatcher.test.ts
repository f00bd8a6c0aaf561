import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { pino } from 'pino';
import type { Storage } from '../storage/database.ts';
import { openTestStorage } from '../testing/testDatabase.ts';
import { newId } from '../storage/ids.ts';
import { auditLogs, plans } from '../storage/schema.ts';
import type { DomainEvent } from '../domain/events.ts';
import { EventDispatcher } from './dispatcher.ts';

let storage: Storage;
beforeAll(async () => {
  storage = await openTestStorage();
});
afterAll(() => storage?.close());

/** A dispatcher whose error log lines are kept, with a subscriber that notes what it heard and whether the change was visible then. */
function dispatcherWithWitness() {
  const logged: { subscriber?: string; event?: string }[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line) as never) });
  const events = new EventDispatcher(storage.db, logger);
  const heard: { phase: 'in' | 'after'; type: DomainEvent['type']; planGone?: boolean }[] = [];
  events.subscribe({
    name: 'witness',
    inTransaction: {
      'plan.deleted': async (event, tx) => {
        // The transaction's own view: the change is there.
        const [plan] = await tx.select({ id: plans.id }).from(plans).where(eq(plans.id, event.formId));
        heard.push({ phase: 'in', type: event.type, planGone: plan === undefined });
        // What an outbox would do: a row written with the change.
        await tx.insert(auditLogs).values({ id: newId(), action: 'witness', targetType: 'plan', targetId: event.formId });
      },
    },
    afterCommit: {
      // Read outside any transaction: the change is committed.
      'plan.deleted': async (event) => {
        const [plan] = await storage.db.select({ id: plans.id }).from(plans).where(eq(plans.id, event.formId));
        heard.push({ phase: 'after', type: event.type, planGone: plan === undefined });
      },
      'plan.presenceChanged': (event) => void heard.push({ phase: 'after', type: event.type }),
    },
  });
  return { events, heard, logged };
}

async function newPlan(): Promise<string> {
  const id = newId();
  await storage.db.insert(plans).values({ id, schoolName: `School ${id}`, schoolYear: '2026-2027' });
  return id;
}

const witnessRows = (formId: string) => storage.db.select().from(auditLogs).where(eq(auditLogs.targetId, formId));

describe('domain events', () => {
  it('reach in-transaction handlers before the commit (their writes commit with the change) and after-commit handlers once it is visible', async () => {
    const { events, heard } = dispatcherWithWitness();
    const formId = await newPlan();
    await events.transaction(async (tx, record) => {
      await tx.delete(plans).where(eq(plans.id, formId));
      record({ type: 'plan.deleted', formId });
    });
    expect(heard).toEqual([
      { phase: 'in', type: 'plan.deleted', planGone: true },
      { phase: 'after', type: 'plan.deleted', planGone: true },
    ]);
    expect(await witnessRows(formId)).toHaveLength(1);
  });

  it('delivers what an in-transaction handler records (a notification it wrote) to every subscriber, in the same transaction and after it', async () => {
    const { events, heard } = dispatcherWithWitness();
    const formId = await newPlan();
    const notification = { id: newId(), userId: newId(), formId, kind: 'test', message: 'Told', link: null, createdAt: new Date(), readAt: null };
    const seen: string[] = [];
    events.subscribe({
      name: 'notifier',
      inTransaction: {
        'plan.liveOverrideSet': async (_event, _tx, record) => void record({ type: 'notification.created', notification }),
        'notification.created': async (event, tx) => {
          await tx.insert(auditLogs).values({ id: newId(), action: 'told', targetType: 'plan', targetId: event.notification.formId });
          seen.push('in');
        },
      },
      afterCommit: { 'notification.created': () => void seen.push('after') },
    });
    await events.transaction(async (_tx, record) => record({ type: 'plan.liveOverrideSet', formId, live: true }));
    expect(seen).toEqual(['in', 'after']);
    expect((await witnessRows(formId)).map((row) => row.action)).toEqual(['told']);
    expect(heard).toEqual([]);
  });

  it('drops the events of a transaction that rolls back, with what its handlers wrote', async () => {
    const { events, heard } = dispatcherWithWitness();
    const formId = await newPlan();
    const failure = new Error('refused after the event');
    await expect(
      events.transaction(async (tx, record) => {
        await tx.delete(plans).where(eq(plans.id, formId));
        record({ type: 'plan.deleted', formId });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(heard).toEqual([]);
    expect(await storage.db.select().from(plans).where(eq(plans.id, formId))).toHaveLength(1);
    expect(await witnessRows(formId)).toHaveLength(0);
  });

  it('rolls the change back when an in-transaction handler fails, and tells no one', async () => {
    const { events, heard } = dispatcherWithWitness();
    events.subscribe({
      name: 'failing outbox',
      inTransaction: {
        'plan.deleted': async () => {
          throw new Error('outbox refused');
        },
      },
    });
    const formId = await newPlan();
    await expect(
      events.transaction(async (tx, record) => {
        await tx.delete(plans).where(eq(plans.id, formId));
        record({ type: 'plan.deleted', formId });
      }),
    ).rejects.toThrow('outbox refused');
    expect(heard.filter((entry) => entry.phase === 'after')).toEqual([]);
    expect(await storage.db.select().from(plans).where(eq(plans.id, formId))).toHaveLength(1);
    expect(await witnessRows(formId)).toHaveLength(0);
  });

  it('keeps the change when an after-commit handler fails: the failure is logged and later subscribers still hear', async () => {
    const { events, heard, logged } = dispatcherWithWitness();
    const later: string[] = [];
    events.subscribe({
      name: 'broken delivery',
      afterCommit: {
        'plan.deleted': () => {
          throw new Error('socket gone');
        },
      },
    });
    events.subscribe({ name: 'later', afterCommit: { 'plan.deleted': (event) => void later.push(event.formId) } });
    const [first, second] = [await newPlan(), await newPlan()];
    await events.transaction(async (tx, record) => {
      await tx.delete(plans).where(inArray(plans.id, [first, second]));
      record({ type: 'plan.deleted', formId: first });
      record({ type: 'plan.deleted', formId: second });
    });
    expect(later).toEqual([first, second]);
    expect(heard.filter((entry) => entry.phase === 'after')).toHaveLength(2);
    expect(logged.map(({ subscriber, event }) => [subscriber, event])).toEqual([
      ['broken delivery', 'plan.deleted'],
      ['broken delivery', 'plan.deleted'],
    ]);
    expect(
      await storage.db
        .select()
        .from(plans)
        .where(inArray(plans.id, [first, second])),
    ).toHaveLength(0);
  });

  it('publishes an event outside a transaction to after-commit handlers only', async () => {
    const { events, heard } = dispatcherWithWitness();
    await events.publish({ type: 'plan.presenceChanged', formId: newId(), editors: [] });
    expect(heard).toEqual([{ phase: 'after', type: 'plan.presenceChanged' }]);
  });

  it('refuses an event recorded after its transaction ended', async () => {
    const { events } = dispatcherWithWitness();
    let late: ((formId: string) => void) | undefined;
    await events.transaction(async (_tx, record) => {
      late = (formId) => record({ type: 'plan.deleted', formId });
    });
    expect(() => late!(newId())).toThrow('plan.deleted recorded after its transaction ended');
  });
});
