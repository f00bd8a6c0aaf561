/**
 * A client address as a load balancer reports it (the last entry is the one the server trusts),
 * drawn from the benchmarking range 198.18.0.0/15: per-address limits such as sign-in's see
 * tens of thousands of people, not a few hundred sharing counters.
 */
export function randomClientAddress(): string {
  const octet = () => Math.floor(Math.random() * 256);
  return `198.51.100.${1 + Math.floor(Math.random() * 250)}, 198.${18 + (octet() % 2)}.${octet()}.${1 + Math.floor(Math.random() * 254)}`;
}

/** One request and its answer, as a check over a whole suite reads it (responses.test.ts: against the OpenAPI document). */
export interface Exchange {
  method: string;
  /** With the query string. */
  path: string;
  requestBody?: unknown;
  status: number;
  /** The media type, without parameters (`text/csv`, not `text/csv; charset=utf-8`). */
  contentType: string;
  /** Parsed when JSON; otherwise undefined. */
  body: unknown;
}

const exchangeListeners = new Set<(exchange: Exchange) => void>();

/** Hands every exchange of every client to `listener` from now on; returns the function that stops it. */
export function onExchange(listener: (exchange: Exchange) => void): () => void {
  exchangeListeners.add(listener);
  return () => exchangeListeners.delete(listener);
}

async function exchangeOf(method: string, path: string, requestBody: unknown, response: Response): Promise<Exchange> {
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const text = contentType === 'application/json' ? await response.clone().text() : '';
  return { method, path, requestBody, status: response.status, contentType, body: text ? JSON.parse(text) : undefined };
}

/** A small HTTP client with a cookie jar and same-origin headers, like a browser tab. */
export class HttpClient {
  readonly cookies = new Map<string, string>();
  readonly baseUrl: string;
  /** The client address a load balancer would report; each client has its own, as real users do. */
  readonly forwardedFor: string;

  constructor(baseUrl: string, forwardedFor = randomClientAddress()) {
    this.baseUrl = baseUrl;
    this.forwardedFor = forwardedFor;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  storeCookies(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const split = pair!.indexOf('=');
      const name = pair!.slice(0, split).trim();
      const value = pair!.slice(split + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(method: string, path: string, init: { json?: unknown; body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { origin: new URL(this.baseUrl).origin, 'x-forwarded-for': this.forwardedFor, ...init.headers };
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    let body = init.body;
    if (init.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(init.json);
    }
    const response = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: 'manual' });
    this.storeCookies(response);
    if (exchangeListeners.size > 0) {
      const exchange = await exchangeOf(method, path, init.json, response);
      for (const listener of exchangeListeners) listener(exchange);
    }
    return response;
  }

  /** Sends a request and returns its status and parsed JSON body. */
  async json<T = any>(method: string, path: string, json?: unknown): Promise<{ status: number; body: T; headers: Headers }> {
    const response = await this.request(method, path, json === undefined ? {} : { json });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: the raw text is the body
    }
    return { status: response.status, body: body as T, headers: response.headers };
  }

  get<T = any>(path: string) {
    return this.json<T>('GET', path);
  }
  post<T = any>(path: string, json: unknown = {}) {
    return this.json<T>('POST', path, json);
  }
  put<T = any>(path: string, json: unknown = {}) {
    return this.json<T>('PUT', path, json);
  }
  delete<T = any>(path: string, json?: unknown) {
    return this.json<T>('DELETE', path, json);
  }
}
