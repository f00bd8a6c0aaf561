import type { Layer } from '@koa/router';
import { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';

/** What a route takes and answers; the OpenAPI document (api/openapi) is generated from these. */
export interface OperationSpec {
  summary: string;
  description?: string;
  /** Path parameters with a shape of their own; any other `:name` is documented as a string. */
  params?: z.ZodObject;
  /** The query, with the schema the route parses it with. */
  query?: z.ZodObject;
  /** The JSON body, with the schema the route parses it with. */
  body?: z.ZodType;
  /** By status: the JSON answer's schema, or a whole response object (a file, a redirect). */
  responses: Record<number, z.ZodType | ZodOpenApiResponseObject>;
}

export interface Operation extends OperationSpec {
  tag: string;
}

const OPERATION = Symbol('operation');

/** It only passes the request on, so it fits any route's context. */
type Declaration = <Context>(ctx: Context, next: () => Promise<unknown>) => Promise<unknown>;

/**
 * One resource's operations, all under `tag`, by name. A route puts its own first in its middleware,
 * `router.get(path, operation.list, handler)`, so the declaration travels with the router's layer
 * into the document.
 */
export function operations<Name extends string>(tag: string, specs: Record<Name, OperationSpec>): Record<Name, Declaration> {
  const declare = (spec: OperationSpec): Declaration => Object.assign<Declaration, object>((_ctx, next) => next(), { [OPERATION]: { tag, ...spec } });
  return Object.fromEntries(Object.entries<OperationSpec>(specs).map(([name, spec]) => [name, declare(spec)])) as Record<Name, Declaration>;
}

/** The operation a router layer declares, if it declares one. */
export function operationOf(layer: Layer): Operation | undefined {
  const declaration = layer.stack.find((middleware) => OPERATION in middleware);
  return declaration && (declaration as unknown as { [OPERATION]: Operation })[OPERATION];
}

/** An answer that is not JSON (a file, a page): its media type only. */
export const mediaAnswer = (contentType: string, description: string): ZodOpenApiResponseObject => ({ description, content: { [contentType]: {} } });

/** A redirect (a browser navigation, not a JSON call). */
export const redirectAnswer = (description: string): ZodOpenApiResponseObject => ({ description, headers: z.object({ location: z.string() }) });
