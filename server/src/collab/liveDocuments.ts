import type { Step, StepAnswers } from '@csp/shared';

/** A committed write of a step's answers, as its live document needs it. */
export interface SavedAnswers {
  formId: string;
  step: Step;
  /** Only the answers the write changed. */
  answers: StepAnswers;
  completed: boolean;
  savedBy: string;
  /** Read from the live document itself (its record): the document holds these answers already. */
  fromDocument?: boolean | undefined;
}

/** After a REST save, the live documents of the step learn the saved answers. */
export interface LiveDocuments {
  isLiveEditor(formId: string, stepKey: string, userId: string): Promise<boolean>;
  /** In the background: the save is already the record. */
  applySavedAnswers(saved: SavedAnswers): void;
}
