/**
 * What went wrong, in the domain's words. Domain functions, policy and routes throw these; the HTTP
 * layer alone turns a kind into a status (http/errors.ts), so nothing below it speaks HTTP.
 */
export type ErrorKind = 'invalid' | 'unauthenticated' | 'forbidden' | 'not-found' | 'conflict' | 'locked' | 'too-many-requests';

export class AppError extends Error {
  readonly kind: ErrorKind;
  /** Fields the answer carries beside its message (`existingFormId`, `lockedBy`, `details`...). */
  readonly extra: Record<string, unknown>;
  /** When a refusal ends: a client may try again after this many seconds. */
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ErrorKind, message: string, extra: Record<string, unknown> = {}, retryAfterSeconds?: number) {
    super(message);
    this.name = 'AppError';
    this.kind = kind;
    this.extra = extra;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export const invalidInput = (message: string, extra?: Record<string, unknown>) => new AppError('invalid', message, extra);
export const unauthenticated = (message = 'Unauthorized') => new AppError('unauthenticated', message);
export const forbidden = (message = 'Access denied') => new AppError('forbidden', message);
export const notFound = (message = 'Not found') => new AppError('not-found', message);
export const conflict = (message: string, extra?: Record<string, unknown>) => new AppError('conflict', message, extra);
export const locked = (message: string, extra?: Record<string, unknown>) => new AppError('locked', message, extra);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError('too-many-requests', 'Too many requests', {}, Math.max(1, Math.ceil(retryAfterSeconds)));
