// Small fetch helpers for the same-origin API (/api/...). The session cookie travels with
// every request; nothing here throws for HTTP or network failures, callers branch on `ok`.

export interface ApiResult<T> {
  /** true for a 2xx answer whose body parsed as JSON */
  ok: boolean;
  /** HTTP status, or 0 when the request never got an answer (network error, server down) */
  status: number;
  /** parsed JSON body (also for error answers, e.g. `{ error }`), or null */
  data: T | null;
}

async function request<T>(path: string, init: RequestInit): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      credentials: 'same-origin',
      ...init,
      headers: { accept: 'application/json', ...init.headers },
    });
  } catch {
    return { ok: false, status: 0, data: null };
  }

  let data: T | null = null;
  let parsed = false;
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      data = (await response.json()) as T;
      parsed = true;
    } catch {
      data = null;
    }
  }

  return { ok: response.ok && parsed, status: response.status, data };
}

/** GET a JSON resource. */
export function getJson<T = unknown>(path: string, signal?: AbortSignal): Promise<ApiResult<T>> {
  return request<T>(path, signal ? { method: 'GET', signal } : { method: 'GET' });
}

/** POST a JSON body. */
export function postJson<T = unknown>(path: string, body: unknown = {}): Promise<ApiResult<T>> {
  return request<T>(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

// Shapes of the answers this skeleton reads (see DESIGN.md §3–4).

export interface SessionUser {
  name: string;
  email: string;
  level: number;
  schoolName?: string | null;
}

export interface SessionResponse {
  user: SessionUser;
}

export type { PublicOverview } from '@csp/shared/api/public';

export interface PlanSummary {
  _id: string;
  schoolName: string;
  schoolYear: string;
  status: string;
  completedSteps: string[];
  locked: boolean;
}

export interface FormsResponse {
  forms: PlanSummary[];
}

/** Sign-in URL that comes back to `callbackUrl` (a same-origin path) afterwards. */
export function signInUrl(callbackUrl: string): string {
  // keep the slashes readable: /api/auth/signin?callbackUrl=/plans
  return `/api/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl).replaceAll('%2F', '/')}`;
}

/** Ends the session (POST with an empty JSON body). The caller reloads the page. */
export function signOut(): Promise<ApiResult<unknown>> {
  return postJson('/api/auth/signout', {});
}
