/** What the access extension learns at connect, carried by every hook of the connection. */
export interface ConnectionContext {
  token: string;
  sessionId: string;
  userId: string;
  formId: string;
  stepKey: string;
}
