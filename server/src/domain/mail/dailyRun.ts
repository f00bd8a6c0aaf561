import type { Database } from '../../storage/database.ts';
import { dailyMailRuns } from '../../storage/schema.ts';
import { queueDeadlineReminders } from './queueDeadlineReminders.ts';

/**
 * The district's daily mail run for `day`, taken by the first process to ask: it records the day and
 * queues the deadline reminders in one transaction, so the reminders of a day are queued exactly once.
 * False when another process (or an earlier turn) already took the day.
 */
export async function startDailyRun(db: Database, day: string, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [run] = await tx.insert(dailyMailRuns).values({ day, startedAt: now }).onConflictDoNothing().returning();
    if (!run) return false;
    await queueDeadlineReminders(tx, day);
    return true;
  });
}
