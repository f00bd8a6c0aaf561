import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Storage } from '../storage/database.ts';
import type { KeyValueStore } from '../kv/index.ts';
import type { BankCatalog } from './questionBank/bankCatalog.ts';
import type { RecentPlanSteps } from './plans/recentPlanSteps.ts';
import type { DomainEvents } from './events.ts';

/** Whether someone edits a step live right now: the collaboration server knows. */
interface LiveEditing {
  isLiveEditor(formId: string, stepKey: string, userId: string): Promise<boolean>;
}

/**
 * What domain functions are given, and all they reach: the database, the shared store, the
 * question-bank catalog, this process's memory of recent plan steps, and the event dispatcher
 * through which every side effect leaves (domain/events.ts). Nothing here knows HTTP, sockets or
 * live documents; those subscribe to the events.
 */
export interface DomainServices {
  config: Config;
  logger: Logger;
  storage: Storage;
  kv: KeyValueStore;
  banks: BankCatalog;
  /** What this process last read or wrote of plan steps for their editors (autosaves). */
  recentPlanSteps: RecentPlanSteps;
  events: DomainEvents;
  liveEditing: LiveEditing;
}

/** All but `liveEditing`: what the collaboration server, which is the live editing, is given. */
export type BaseDomainServices = Omit<DomainServices, 'liveEditing'>;
