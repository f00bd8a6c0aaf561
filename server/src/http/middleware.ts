import { STATUS_CODES } from 'node:http';
import type { Middleware } from 'koa';
import type { Logger } from '../logger.ts';
import { StoreUnavailableError } from '../kv/index.ts';
import { AppError } from '../errors.ts';
import { statusOf } from './errors.ts';

interface StatusError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
  message?: string;
}

const STORE_RETRY_AFTER_SECONDS = 5;

function clientErrorMessage(error: StatusError, status: number): string {
  if (status === 413) return 'Payload too large';
  if (status === 400 && (error.type === 'entity.parse.failed' || /JSON|Unexpected token|position/i.test(error.message ?? ''))) {
    return 'Invalid JSON';
  }
  if (status === 415) return 'Unsupported content type';
  return error.expose && error.message ? error.message : (STATUS_CODES[status] ?? 'Request failed');
}

/** Every failure leaves as `{ error }`; uncaught ones are logged (never with the request body). */
export function errorEnvelope(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (caught) {
      if (caught instanceof AppError) {
        ctx.status = statusOf(caught);
        if (caught.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(caught.retryAfterSeconds));
        ctx.body = { error: caught.message, ...caught.extra };
        return;
      }
      if (caught instanceof StoreUnavailableError) {
        // An outage of the shared store, not a bug: the client retries shortly.
        logger.warn({ err: caught, method: ctx.method, path: ctx.path }, 'request needs the shared store, which is unavailable');
        ctx.status = 503;
        ctx.set('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
        ctx.body = { error: 'Temporarily unavailable; try again shortly' };
        return;
      }
      const error = caught as StatusError;
      const status = error.status ?? error.statusCode;
      // 4xx and deliberate 5xx from libraries (501, 503...) keep their meaning; only 500s are ours to log.
      if (status && status >= 400 && status < 600 && status !== 500) {
        ctx.status = status;
        ctx.body = { error: clientErrorMessage(error, status) };
        if (status >= 500) logger.warn({ err: caught, method: ctx.method, path: ctx.path, status }, 'request refused by a library');
        return;
      }
      logger.error({ err: caught, method: ctx.method, path: ctx.path }, 'request failed');
      ctx.status = 500;
      ctx.body = { error: 'Internal server error' };
    }
  };
}

/** One structured line per request: method, path, status, duration. */
export function requestLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      logger.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms }, 'request');
    }
  };
}
