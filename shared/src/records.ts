/** Shapes of the JSON records that plans and year settings carry. */

export const NEEDS_UPDATE_REASONS = ['new', 'changed', 'revisit'] as const;
export type NeedsUpdateReason = (typeof NEEDS_UPDATE_REASONS)[number];

export const NEEDS_UPDATE_LABELS: Record<NeedsUpdateReason, string> = {
  new: 'New this year',
  changed: 'Question changed: review the copied answer',
  revisit: 'Same as last year: confirm names, dates and targets',
};

export interface NeedsUpdateFlag {
  questionId: string;
  stepKey: string;
  reason: NeedsUpdateReason;
  label: string;
}

export interface Attestation {
  confirmed: boolean;
  name: string;
  signedAt: string;
  signedBy: string;
}

export interface TransferRecord {
  fromUserId: string | null;
  fromEmail: string | null;
  toUserId: string;
  toEmail: string;
  transferredBy: string;
  transferredAt: string;
}

export interface Deadline {
  stepKey: string;
  label: string;
  dueDate: string;
}

export interface DistrictGoal {
  key: string;
  label: string;
  target: number | string;
  unit: string;
}
