import bundled from './v1.json' with { type: 'json' };
import { questionBankSchema, type QuestionBank } from '../questionBank.ts';

/** The bank shipped with the service (version 1), validated once. */
export const BUNDLED_BANK: QuestionBank = questionBankSchema.parse(bundled);
