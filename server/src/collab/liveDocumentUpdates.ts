import type { WrittenAnswers, Writer } from '../domain/events.ts';
import type { EventSubscriber } from '../events/dispatcher.ts';
import type { LiveDocuments } from '../realtime/events.ts';

/**
 * Answers written through the API (a step save, a copy's fill) reach the step's live document
 * once committed, so whoever is connected sees them. A step whose document was never opened is
 * left alone: its document is seeded from the record when it is first opened.
 */
export function liveDocumentUpdates(documents: Pick<LiveDocuments, 'applySavedAnswers'>): EventSubscriber {
  const apply = (formId: string, by: Writer, write: WrittenAnswers, savedLive?: boolean) => {
    if (!write.hasDocument) return;
    documents.applySavedAnswers({ formId, step: write.step, answers: write.answers, completed: write.completed, savedBy: by.id, savedLive });
  };
  return {
    name: 'live documents',
    afterCommit: {
      // A restore's answers never went through the document, even when the restorer is editing it live
      // (the usual case: History is opened from the step editor), so they are always applied to it.
      'step.saved': ({ formId, by, write, savedLive, origin }) => apply(formId, by, write, origin ? false : savedLive),
      'plan.stepsFilled': ({ formId, by, steps }) => {
        for (const write of steps) apply(formId, by, write);
      },
    },
  };
}
