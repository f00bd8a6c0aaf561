import type { WrittenAnswers, Writer } from '../domain/events.ts';
import type { EventSubscriber } from '../events/dispatcher.ts';
import type { LiveDocuments } from './liveDocuments.ts';

/**
 * Answers written through the API (a step save, a copy's fill) reach the step's live document
 * once committed, so whoever is connected sees them. A step whose document was never opened is
 * left alone: its document is seeded from the record when it is first opened.
 */
export function liveDocumentUpdates(documents: Pick<LiveDocuments, 'applySavedAnswers'>): EventSubscriber {
  const apply = (formId: string, by: Writer, write: WrittenAnswers, fromDocument?: boolean) => {
    if (!write.hasDocument) return;
    documents.applySavedAnswers({ formId, step: write.step, answers: write.answers, completed: write.completed, savedBy: by.id, fromDocument });
  };
  return {
    name: 'live documents',
    afterCommit: {
      'step.saved': ({ formId, by, write, fromDocument }) => apply(formId, by, write, fromDocument),
      'plan.stepsFilled': ({ formId, by, steps }) => {
        for (const write of steps) apply(formId, by, write);
      },
    },
  };
}
