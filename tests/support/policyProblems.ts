/**
 * What the browser refused under the app's policies (a Content-Security-Policy violation, a
 * Permissions-Policy it could not read), as its console reported it, from every page of every
 * browser profile `newContext` made. The system project's setup fails each test that leaves any
 * here; a test that provokes one on purpose takes it first.
 */
const problems: string[] = [];

const POLICY_COMPLAINT = /Content Security Policy|Content-Security-Policy|Permissions-Policy|Permissions policy/i;

export const isPolicyComplaint = (consoleText: string): boolean => POLICY_COMPLAINT.test(consoleText);

export function notePolicyProblem(problem: string): void {
  problems.push(problem);
}

/** The problems noted since the last call, which are then forgotten. */
export function takePolicyProblems(): string[] {
  return problems.splice(0);
}
