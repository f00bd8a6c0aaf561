import { and, eq, isNotNull } from 'drizzle-orm';
import type { Attestation } from '@csp/shared';
import type { DomainServices } from '../domainServices.ts';
import type { Database } from '../../storage/database.ts';
import { plans } from '../../storage/schema.ts';
import { invalidInput } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from './loadPlan.ts';
import type { Authorized } from '../../policy/authorize.ts';

/** A name as people type it: case and spacing forgiven. */
const comparable = (name: string) => name.trim().replace(/\s+/g, ' ').toLocaleLowerCase('en-US');

/**
 * The plan's own principal signs it (never another school's principal), with their own name: the
 * typed name must be the signed-in person's (case and spacing forgiven), and `signedBy` is their id.
 * Only while the plan's answers may change: a plan with the district is not signed again.
 */
export async function attestPlan(
  services: DomainServices,
  caller: Caller,
  context: Authorized<PlanContext, 'changeAnswers' | 'attestPlan'>,
  name: string,
): Promise<Attestation> {
  const signer = caller.auth.actor;
  if (comparable(name) !== comparable(signer.name)) {
    throw invalidInput(`Sign with your own name as it is on your account: ${signer.name}`, { expected: signer.name });
  }
  const attestation: Attestation = { confirmed: true, name: signer.name, signedAt: new Date().toISOString(), signedBy: signer.id };
  await services.storage.db.transaction(async (tx) => {
    await tx.update(plans).set({ attestation, updatedAt: new Date() }).where(eq(plans.id, context.plan.id));
    await recordAudit(tx, caller, {
      action: 'plan.attest',
      targetType: 'plan',
      targetId: context.plan.id,
      summary: { after: { name: attestation.name, signedBy: attestation.signedBy } },
    });
  });
  return attestation;
}

/** An attestation holds for the answers it was given on: a change of them (or a return) clears it. */
export async function clearAttestation(db: Database, formId: string): Promise<void> {
  await db
    .update(plans)
    .set({ attestation: null })
    .where(and(eq(plans.id, formId), isNotNull(plans.attestation)));
}
