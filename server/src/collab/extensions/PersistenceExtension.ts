import type {
  Document,
  Extension,
  afterUnloadDocumentPayload,
  beforeUnloadDocumentPayload,
  connectedPayload,
  onChangePayload,
  onLoadDocumentPayload,
  onStoreDocumentPayload,
} from '@hocuspocus/server';
import * as Y from 'yjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { ANSWERS_MAP, META_MAP, parseCollabDocumentName, prepareAnswers, readAnswers, storedMessage, upgradeTables, type Step } from '@csp/shared';
import { recordStepDocument } from '../../domain/plans/recordStepDocument.ts';
import type { ConnectionContext } from '../connectionContext.ts';
import type { BaseServices } from '../../services.ts';
import { plans } from '../../storage/schema.ts';
import { notFound } from '../../errors.ts';
import { DocumentStore } from '../documentStore.ts';
import { WriteAhead } from '../writeAhead.ts';

/**
 * The most a store made while editors are connected waits. Documents whose editing began together
 * (everyone back after a restart, a school's staff in one meeting) would otherwise store together
 * at every `maxDebounce`, for as long as they are edited, and each such burst delays every edit
 * relayed meanwhile; a random wait spreads them within a cycle or two.
 */
const STORE_SPREAD_MS = 2_000;

/**
 * Step documents in PostgreSQL: loaded from their stored state (or seeded from the stored answers
 * on first open), stored debounced while edited and once more before they unload. Between two
 * stores, every update is appended to the write-ahead within a twentieth of a second
 * (`WriteAhead`); each store deletes what it stored of it. Each store also writes the step's
 * record from the merged document (`recordStepDocument`): the record follows what everyone typed,
 * never one person's view of it.
 */
export class PersistenceExtension implements Extension {
  readonly extensionName = 'csp-persistence';
  private readonly services: BaseServices;
  private readonly documents: DocumentStore;
  private readonly writeAhead: WriteAhead;
  /** Closing: stores run at once, the process is about to end. */
  private closing = false;
  // Kept per document instance, not per name: a document unloading while the next one of the same
  // name loads (a reconnect) must not take the new one's entries with it.
  /** The step each loaded document holds (its plan's pinned bank). */
  private readonly steps = new WeakMap<Y.Doc, Step>();
  /** Who last changed each document through a connection of this process since it was last recorded. */
  private readonly writers = new WeakMap<Y.Doc, string>();
  /** By question, everyone who changed it through a connection of this process since it was last recorded (its history's authors). */
  private readonly authors = new WeakMap<Y.Doc, Map<string, Set<string>>>();
  /** The state vector of what each loaded document has stored (its connections are told: `storedMessage`). */
  private readonly stored = new WeakMap<Y.Doc, Uint8Array>();

  constructor(services: BaseServices) {
    this.services = services;
    this.documents = new DocumentStore(services.storage.db);
    this.writeAhead = new WriteAhead(services.storage.db, services.logger);
  }

  async onLoadDocument({ document, documentName }: onLoadDocumentPayload) {
    const { formId, stepKey } = parseCollabDocumentName(documentName)!;
    // The plan's pinned bank says what the step holds (the seed's fields and their kinds).
    const [plan] = await this.services.storage.db.select({ version: plans.questionBankVersion }).from(plans).where(eq(plans.id, formId)).limit(1);
    const step = plan ? (await this.services.banks.resolve(plan.version)).steps.find((candidate) => candidate.key === stepKey) : undefined;
    if (!step) throw notFound();
    // Write-ahead rows left by a process that died before storing them are applied too.
    const recovered = await this.documents.load(document, documentName, formId, step);
    this.writeAhead.adopt(document, recovered);
    // A document stored before every answer had its shared type (new documents are seeded with
    // them), or before rows had ids, gets them, stored at once: a second process that loads it
    // meanwhile must find them, not make its own (Y.js would keep one of two, and what was typed
    // into the other would be lost). Recovered rows are stored at once too, and so compacted.
    const prepared = prepareAnswers(document, step, 'prepare');
    const upgraded = upgradeTables(document, 'upgrade');
    if (prepared || upgraded || recovered.length > 0) await this.storeState(documentName, formId, document);
    this.stored.set(document, Y.encodeStateVector(document));
    this.steps.set(document, step);
    this.followAuthors(document);
    // A process that stopped between storing a document and recording it: the record catches up now.
    await this.record(documentName, formId, step, document);
    return document;
  }

  /** A connection that opens learns what is stored already. */
  async connected({ connection }: connectedPayload<ConnectionContext>) {
    const stored = this.stored.get(connection.document);
    if (stored) connection.sendStateless(storedMessage(stored));
  }

  // A connection's change carries its person; changes relayed from other processes or written by
  // the server (a REST save) carry none and are recorded by whoever made them.
  async onChange({ document, documentName, context, update, transactionOrigin }: onChangePayload<ConnectionContext>) {
    if (context?.userId) this.writers.set(document, context.userId);
    // What came through Redis is in the write-ahead of the process it came from. The server's own
    // writes (a REST save) are appended with the connections' updates: they are few.
    if ((transactionOrigin as { source?: unknown } | null)?.source !== 'redis') this.writeAhead.append(document, documentName, update);
  }

  async onStoreDocument({ document, documentName }: onStoreDocumentPayload) {
    // The last editor gone (the document unloads next) or the server closing: nobody may wait.
    // (The payload's count is the one of the change that scheduled the store.)
    if (document.getConnectionsCount() > 0 && !this.closing) await sleep(Math.random() * STORE_SPREAD_MS);
    await this.store(documentName, document);
  }

  // Changes that arrived from another process through Redis schedule no store here; a process
  // that unloads a document stores it first (merged, and skipped when nothing changed).
  async beforeUnloadDocument({ document, documentName }: beforeUnloadDocumentPayload) {
    await this.store(documentName, document);
  }

  private async store(documentName: string, document: Document) {
    const { formId } = parseCollabDocumentName(documentName)!;
    const stateVector = await this.storeState(documentName, formId, document);
    this.stored.set(document, stateVector);
    const step = this.steps.get(document);
    if (step) await this.record(documentName, formId, step, document);
    // Told after the record: a person who sees "Saved" finds it in exports and history too.
    document.broadcastStateless(storedMessage(stateVector));
  }

  /**
   * Notes who changed which answer: a connection's update is applied in a transaction whose origin
   * is that connection (Hocuspocus), and each event's path starts at the answer it changed.
   */
  private followAuthors(document: Y.Doc) {
    document.getMap(ANSWERS_MAP).observeDeep((events, transaction) => {
      const userId = (transaction.origin as { connection?: { context?: ConnectionContext } } | null)?.connection?.context?.userId;
      if (!userId) return;
      let byQuestion = this.authors.get(document);
      if (!byQuestion) this.authors.set(document, (byQuestion = new Map()));
      for (const event of events) {
        const questionIds = event.path.length > 0 ? [String(event.path[0])] : event instanceof Y.YMapEvent ? [...event.keysChanged] : [];
        for (const questionId of questionIds) {
          let people = byQuestion.get(questionId);
          if (!people) byQuestion.set(questionId, (people = new Set()));
          people.add(userId);
        }
      }
    });
  }

  /** Stores the document and compacts the write-ahead rows it held; returns the state vector stored. */
  private async storeState(documentName: string, formId: string, document: Document): Promise<Uint8Array> {
    const compact = await this.writeAhead.claim(document);
    // Nothing may wait between the claim and the encoding (the claimed rows must be in the state),
    // and changes arriving while the store waits are not claimed stored.
    const stateVector = Y.encodeStateVector(document);
    await this.documents.store(documentName, formId, document, compact);
    this.writeAhead.compacted(document, compact);
    return stateVector;
  }

  private async record(documentName: string, formId: string, step: Step, document: Y.Doc) {
    const writerId = this.writers.get(document) ?? null;
    this.writers.delete(document);
    const byQuestion = this.authors.get(document);
    this.authors.delete(document);
    const authors = Object.fromEntries([...(byQuestion ?? [])].map(([questionId, people]) => [questionId, [...people]]));
    const answers = readAnswers(document);
    const completed = document.getMap(META_MAP).get('completed') === true;
    // The Y.js state is stored: a record that fails now is written at the next store, or when the document loads again.
    await recordStepDocument(this.services, { formId, step, answers, completed, writerId, authors }).catch((error: unknown) =>
      this.services.logger.error({ err: error, documentName }, 'step record not written from its document; the next store tries again'),
    );
  }

  /** From now on every store runs at once. */
  close(): void {
    this.closing = true;
  }

  async afterUnloadDocument({ documentName }: afterUnloadDocumentPayload) {
    this.documents.forget(documentName);
  }
}
