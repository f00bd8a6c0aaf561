import type { z } from 'zod';

/**
 * A refused or failed request: `status` is the HTTP status (0 when the server could not be
 * reached), `body` the JSON error body when there was one, `retryAfter` the Retry-After seconds.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown> | null;
  readonly retryAfter: number | null;

  constructor(status: number, message: string, body: Record<string, unknown> | null = null, retryAfter: number | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter;
  }

  get offline(): boolean {
    return this.status === 0;
  }
}

/** What a person reads when a request fails: the server's own `error` text, else a plain reason. */
function messageFor(status: number, body: Record<string, unknown> | null): string {
  if (typeof body?.error === 'string' && body.error) return body.error;
  if (status === 401) return 'Your session has ended. Please sign in again.';
  if (status === 403) return 'You do not have access to this.';
  if (status === 404) return 'Not found.';
  if (status === 429) return 'Too many requests. Please wait a moment.';
  return `The server answered with an error (${status}).`;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One same-origin JSON request whose answer is parsed with the shared zod schema, so what the
 * app reads is exactly what the server's presenters promise.
 */
export async function request<S extends z.ZodType>(method: Method, path: string, schema: S, body?: unknown, signal?: AbortSignal): Promise<z.infer<S>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, 'The server could not be reached. Check your connection.');
  }
  const json: unknown = (response.headers.get('content-type') ?? '').includes('json') ? await response.json().catch(() => null) : null;
  if (!response.ok) {
    const errorBody = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : null;
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ApiError(response.status, messageFor(response.status, errorBody), errorBody, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ApiError(response.status, 'The server sent an answer this page does not understand. Reload the page.');
  return parsed.data;
}

/** Query string from defined values only. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
