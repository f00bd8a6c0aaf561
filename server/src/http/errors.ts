/** An error that becomes a JSON response `{ error, ...extra }` with its status. */
export class HttpError extends Error {
  readonly status: number;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.extra = extra;
    this.headers = headers;
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) => new HttpError(400, message, extra);
export const unauthorized = (message = 'Unauthorized') => new HttpError(401, message);
export const forbidden = (message = 'Access denied') => new HttpError(403, message);
export const notFound = (message = 'Not found') => new HttpError(404, message);
export const conflict = (message: string, extra?: Record<string, unknown>) => new HttpError(409, message, extra);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new HttpError(429, 'Too many requests', {}, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
