import type { Extension, afterUnloadDocumentPayload, beforeUnloadDocumentPayload, onLoadDocumentPayload, onStoreDocumentPayload } from '@hocuspocus/server';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { parseCollabDocumentName } from '@csp/shared';
import type { BaseServices } from '../../services.ts';
import { plans } from '../../storage/schema.ts';
import { DocumentStore } from '../documentStore.ts';

/**
 * The most a store made while editors are connected waits. Documents whose editing began together
 * (everyone back after a restart, a school's staff in one meeting) would otherwise store together
 * at every `maxDebounce`, for as long as they are edited, and each such burst delays every edit
 * relayed meanwhile; a random wait spreads them within a cycle or two.
 */
const STORE_SPREAD_MS = 2_000;

/**
 * Step documents in PostgreSQL: loaded from their stored state (or seeded from the stored answers
 * on first open), stored debounced while edited and once more before they unload.
 */
export class PersistenceExtension implements Extension {
  readonly extensionName = 'csp-persistence';
  private readonly services: BaseServices;
  private readonly documents: DocumentStore;
  /** Closing: stores run at once, the process is about to end. */
  private closing = false;

  constructor(services: BaseServices) {
    this.services = services;
    this.documents = new DocumentStore(services.storage.db);
  }

  async onLoadDocument({ document, documentName }: onLoadDocumentPayload) {
    const { formId, stepKey } = parseCollabDocumentName(documentName)!;
    // The plan's pinned bank says what the step holds (the seed's fields and their kinds).
    const [plan] = await this.services.storage.db.select({ version: plans.questionBankVersion }).from(plans).where(eq(plans.id, formId)).limit(1);
    const step = plan ? (await this.services.banks.resolve(plan.version)).steps.find((candidate) => candidate.key === stepKey) : undefined;
    if (!step) throw new Error('Not found');
    await this.documents.load(document, documentName, formId, step);
    return document;
  }

  async onStoreDocument({ document, documentName }: onStoreDocumentPayload) {
    // The last editor gone (the document unloads next) or the server closing: nobody may wait.
    // (The payload's count is the one of the change that scheduled the store.)
    if (document.getConnectionsCount() > 0 && !this.closing) await sleep(Math.random() * STORE_SPREAD_MS);
    await this.documents.store(documentName, parseCollabDocumentName(documentName)!.formId, document);
  }

  // Changes that arrived from another process through Redis schedule no store here; a process
  // that unloads a document stores it first (merged, and skipped when nothing changed).
  async beforeUnloadDocument({ document, documentName }: beforeUnloadDocumentPayload) {
    await this.documents.store(documentName, parseCollabDocumentName(documentName)!.formId, document);
  }

  /** From now on every store runs at once. */
  close(): void {
    this.closing = true;
  }

  async afterUnloadDocument({ documentName }: afterUnloadDocumentPayload) {
    this.documents.forget(documentName);
  }
}
