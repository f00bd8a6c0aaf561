import { describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.ts';
import { HistoryQueue, type StepWriteHistory } from './historyQueue.ts';

const write = (
  stepRevision: number,
  questionId: string,
  before: string | null,
  after: string,
  author: string,
  kind: StepWriteHistory['kind'] = 'edit',
): StepWriteHistory => ({
  formId: 'f'.repeat(24),
  stepKey: 'attendancePlan',
  stepRevision,
  at: new Date(1_000 * stepRevision),
  kind,
  restoredFromId: null,
  changes: [{ questionId, before, after, authorIds: [author] }],
});

/** A recorder whose writes finish only when the test says so. */
function recorder() {
  const started: StepWriteHistory[] = [];
  const finish: (() => void)[] = [];
  const record = (entry: StepWriteHistory) => {
    started.push(structuredClone(entry));
    return new Promise<void>((resolve) => finish.push(resolve));
  };
  return { started, finish, record };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the history queue', () => {
  it('writes at once while it is idle, and a step’s later writes join the one still waiting (first before, last after, people joined)', async () => {
    const { started, finish, record } = recorder();
    const queue = new HistoryQueue(record, createLogger('silent'));
    // Four steps in flight fill it.
    for (let step = 1; step <= 4; step++) queue.add({ ...write(step, 'q1', null, `busy ${step}`, 'u0'), stepKey: `step${step}` });
    expect(started).toHaveLength(4);
    queue.add(write(5, 'q1', null, 'A', 'u1'));
    queue.add(write(6, 'q1', 'A', 'AB', 'u2'));
    queue.add(write(7, 'q2', null, 'x', 'u1'));
    // A restore is a revision of its own, never joined.
    queue.add(write(8, 'q1', 'AB', 'A', 'u1', 'restore'));
    expect(started).toHaveLength(4);
    finish.shift()!();
    await settle();
    expect(started[4]).toMatchObject({
      stepRevision: 7,
      kind: 'edit',
      changes: [
        { questionId: 'q1', before: null, after: 'AB', authorIds: ['u1', 'u2'] },
        { questionId: 'q2', before: null, after: 'x', authorIds: ['u1'] },
      ],
    });
    finish.shift()!();
    await settle();
    expect(started[5]).toMatchObject({ stepRevision: 8, kind: 'restore', changes: [{ questionId: 'q1', before: 'AB', after: 'A' }] });
    expect(started).toHaveLength(6);
    // Drain waits for what is in flight.
    let drained = false;
    const draining = queue.drain().then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    for (const done of finish.splice(0)) done();
    await draining;
    expect(drained).toBe(true);
  });
});
