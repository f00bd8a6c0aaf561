import type { Hocuspocus } from '@hocuspocus/server';
import type * as Y from 'yjs';
import { collabDocumentName, writeAnswers, writeCompleted } from '@csp/shared';
import type { Logger } from '../logger.ts';
import type { SavedAnswers } from './liveDocuments.ts';

/**
 * A REST save by someone not editing live (a script, a stale tab) reaches the step's live
 * document, so everyone connected sees it. It runs after the response (the save is already the
 * record); `drain` lets shutdown wait for what is under way.
 */
export class SavedAnswersApplier {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly hocuspocus: Hocuspocus;
  private readonly logger: Logger;

  constructor(hocuspocus: Hocuspocus, logger: Logger) {
    this.hocuspocus = hocuspocus;
    this.logger = logger;
  }

  apply(saved: SavedAnswers): void {
    const task = this.write(saved).catch((error: unknown) =>
      this.logger.error({ err: error, formId: saved.formId, stepKey: saved.step.key }, 'could not apply a saved step to its live document'),
    );
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }

  async drain(): Promise<void> {
    await Promise.all(this.pending);
  }

  private async write({ formId, step, answers, completed, savedBy, fromDocument }: SavedAnswers) {
    const documentName = collabDocumentName(formId, step.key);
    // Every other write is applied, whoever made it: the browser never saves a live step through
    // the route, so a save by someone who is also connected live (an API client, a restore from
    // History) is not in the document, and the document's next record would undo it. Only the
    // fields the write changed in the record are written, so nobody else's text goes.
    if (fromDocument) return;
    const write = (document: Y.Doc) => {
      writeAnswers(document, step, answers, 'rest-save');
      writeCompleted(document, completed, 'rest-save');
    };
    // Loaded here: change it in place (connected peers and other processes get the update).
    const loaded = this.hocuspocus.documents.get(documentName);
    if (loaded && !loaded.isLoading) return write(loaded);
    const direct = await this.hocuspocus.openDirectConnection(documentName, { userId: savedBy, formId, stepKey: step.key });
    try {
      await direct.transact(write);
    } finally {
      await direct.disconnect();
    }
  }
}
