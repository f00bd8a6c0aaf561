import type { AppError, ErrorKind } from '../errors.ts';

/** The one place a domain error becomes an HTTP status. */
const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  locked: 423,
  'too-many-requests': 429,
};

export const statusOf = (error: AppError): number => STATUS_OF[error.kind];
