import type { Hocuspocus } from '@hocuspocus/server';
import type * as Y from 'yjs';
import { collabDocumentName, writeAnswers, writeCompleted } from '@csp/shared';
import type { Logger } from '../logger.ts';
import type { SavedAnswers } from '../realtime/events.ts';
import type { LiveEditorsExtension } from './extensions/LiveEditorsExtension.ts';

/**
 * A REST save by someone not editing live (a script, a stale tab) reaches the step's live
 * document, so everyone connected sees it. It runs after the response (the save is already the
 * record); `drain` lets shutdown wait for what is under way.
 */
export class SavedAnswersApplier {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly hocuspocus: Hocuspocus;
  private readonly liveEditors: LiveEditorsExtension;
  private readonly logger: Logger;

  constructor(hocuspocus: Hocuspocus, liveEditors: LiveEditorsExtension, logger: Logger) {
    this.hocuspocus = hocuspocus;
    this.liveEditors = liveEditors;
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

  private async write({ formId, step, answers, completed, savedBy, savedLive }: SavedAnswers) {
    const documentName = collabDocumentName(formId, step.key);
    // A live saver's answers merged through the document already. Unknown (Redis down) applies:
    // only the fields this save changed in the record are written, so nobody's text goes.
    if (savedLive ?? (await this.liveEditors.isLive(documentName, savedBy))) return;
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
