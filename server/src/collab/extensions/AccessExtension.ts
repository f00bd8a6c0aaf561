import type { Extension, onAuthenticatePayload } from '@hocuspocus/server';
import { parseCollabDocumentName } from '@csp/shared';
import type { BaseServices } from '../../services.ts';
import { SESSION_COOKIE, validateSessionToken } from '../../auth/sessions.ts';
import { can } from '../../policy/index.ts';
import { findPlan } from '../../domain/plans/loadPlan.ts';
import { sessionTokenFromCookie } from '../../auth/socketHandshake.ts';
import { forbidden, notFound, unauthenticated } from '../../errors.ts';
import type { ConnectionContext } from '../connectionContext.ts';

/** What a connection may still do after someone's access changed. */
export type ConnectionAccess = 'revoked' | 'read-only' | 'editable';

/**
 * Who may open a step document: the session (cookie, or the provider's token) and the policy
 * module decide at connect, and again whenever access may have changed. A refusal is one of the
 * neutral errors (errors.ts); Hocuspocus tells the client only `permission-denied`.
 */
export class AccessExtension implements Extension {
  readonly extensionName = 'csp-access';
  private readonly services: BaseServices;

  constructor(services: BaseServices) {
    this.services = services;
  }

  async onAuthenticate({ documentName, requestHeaders, token, connectionConfig }: onAuthenticatePayload): Promise<ConnectionContext> {
    const target = parseCollabDocumentName(documentName);
    if (!target) throw notFound('Unknown document');
    const sessionToken = sessionTokenFromCookie(requestHeaders.get('cookie'), SESSION_COOKIE) ?? (token || null);
    const auth = sessionToken ? await validateSessionToken(this.services, sessionToken) : null;
    if (!auth) throw unauthenticated();
    const context = await findPlan(this.services, auth.actor, target.formId);
    const bank = context ? await this.services.banks.resolve(context.plan.questionBankVersion) : null;
    if (!context || !bank?.steps.some((step) => step.key === target.stepKey)) throw notFound();
    const step = { plan: context, stepKey: target.stepKey };
    if (!can(auth.actor, 'readStep', step)) throw forbidden();
    connectionConfig.readOnly = !can(auth.actor, 'changeAnswers', context) || !can(auth.actor, 'editStep', step);
    return { token: sessionToken!, sessionId: auth.sessionId, userId: auth.actor.id, formId: target.formId, stepKey: target.stepKey };
  }

  /**
   * The connection's access now: its session may have ended, its share gone or its year archived.
   * A failure to read (the database unreachable) is thrown, never answered as 'revoked'.
   */
  async recheck(context: ConnectionContext): Promise<ConnectionAccess> {
    const auth = await validateSessionToken(this.services, context.token);
    const plan = auth ? await findPlan(this.services, auth.actor, context.formId) : null;
    const step = plan && { plan, stepKey: context.stepKey };
    if (!auth || !step || !can(auth.actor, 'readStep', step)) return 'revoked';
    return can(auth.actor, 'changeAnswers', plan) && can(auth.actor, 'editStep', step) ? 'editable' : 'read-only';
  }
}
