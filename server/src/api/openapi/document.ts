import { STATUS_CODES } from 'node:http';
import type Router from '@koa/router';
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { stepSchema } from '@csp/shared';
import { errorBodySchema } from '@csp/shared/api/common';
import { auditRecordSchema } from '@csp/shared/api/audit';
import { commentSchema, editorSchema, planShareSchema, planSummarySchema } from '@csp/shared/api/forms';
import { notificationSchema } from '@csp/shared/api/notifications';
import { adminBankSchema } from '@csp/shared/api/questionBankAdmin';
import { deadlineSchema, districtGoalSchema, yearSettingsSchema } from '@csp/shared/api/schoolYears';
import { rolloverProgressSchema, rolloverResultSchema } from '@csp/shared/api/admin';
import { userSchema } from '@csp/shared/api/users';
import { isPublic, superAdminOnly } from '../../auth/gate.ts';
import { SESSION_COOKIE } from '../../auth/sessions.ts';
import { appVersion } from '../../domain/system/appVersion.ts';
import { operationOf, type Operation } from '../../http/operation.ts';

export type OpenApiDocument = ReturnType<typeof createDocument>;

/** Shapes many operations share, named once in `components` (wherever one appears, the document refers to it). */
const SHARED_SCHEMAS = {
  Error: errorBodySchema,
  User: userSchema,
  PlanSummary: planSummarySchema,
  PlanShare: planShareSchema,
  Comment: commentSchema,
  Editor: editorSchema,
  Notification: notificationSchema,
  AuditRecord: auditRecordSchema,
  BankStep: stepSchema,
  Bank: adminBankSchema,
  YearSettings: yearSettingsSchema,
  Deadline: deadlineSchema,
  DistrictGoal: districtGoalSchema,
  RolloverProgress: rolloverProgressSchema,
  RolloverResult: rolloverResultSchema,
};

const errorAnswer = (description: string) => ({ description, content: { 'application/json': { schema: errorBodySchema } } });

/** `/api/forms/:id` as OpenAPI writes it: `/api/forms/{id}`. */
const templateOf = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/**
 * The OpenAPI 3.1 document of every route `router` mounts, from the operation each route declares
 * (http/operation.ts); a route that declares none is an error, so none goes undocumented.
 */
export function openApiDocument(router: Router): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  for (const layer of router.stack) {
    // HEAD comes with every GET; a layer without methods is router-wide middleware.
    const methods = layer.methods.filter((method) => method !== 'HEAD');
    if (methods.length === 0) continue;
    const path = String(layer.path);
    const operation = operationOf(layer);
    if (!operation) throw new Error(`${methods.join(', ')} ${path} declares no operation (http/operation.ts)`);
    const pathParams = layer.paramNames.map((key) => String(key.name));
    for (const method of methods) {
      const pathItem = (paths[templateOf(path)] ??= {});
      pathItem[method.toLowerCase() as 'get'] = operationObject(operation, {
        pathParams,
        // The gate lets every /api/auth/ route through; those that need a session answer 401 themselves.
        signedIn: !isPublic(method, path) || 401 in operation.responses,
        superAdminOnly: layer.stack.includes(superAdminOnly),
      });
    }
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Consolidated School Plan API',
        version: appVersion() || '0.0.0',
        description: 'The JSON API the web app uses. Generated from the routes and the shared zod schemas they parse and answer with.',
      },
      paths,
      components: {
        schemas: SHARED_SCHEMAS,
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The session cookie that signing in (`/api/auth/signin`) sets.' },
        },
      },
    },
    {
      // zod's int() bounds are JavaScript's safe-integer range: noise in a reference.
      override: ({ jsonSchema }) => {
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      },
    },
  );
}

function operationObject(operation: Operation, route: { pathParams: string[]; signedIn: boolean; superAdminOnly: boolean }): ZodOpenApiOperationObject {
  const { tag, summary, description, params, query, body } = operation;
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, answer] of Object.entries(operation.responses)) {
    responses[status as '200'] =
      answer instanceof z.ZodType ? { description: STATUS_CODES[status] ?? status, content: { 'application/json': { schema: answer } } } : answer;
  }
  // The errors the app's middleware guarantees; a route's own (404, 409...) fall under `default`.
  if (params || query || body) responses['400'] ??= errorAnswer('Invalid input: the message names the first bad field, `details` each one.');
  if (route.signedIn) responses['401'] ??= errorAnswer('Not signed in.');
  if (route.superAdminOnly) responses['403'] ??= errorAnswer('Super Admins only.');
  responses.default = errorAnswer('Any other error (not found, conflict, too many requests...).');
  const pathShape = Object.fromEntries(route.pathParams.map((name) => [name, (params?.shape[name] as z.ZodType | undefined) ?? z.string()]));
  return {
    tags: [tag],
    summary,
    ...(description ? { description } : {}),
    security: route.signedIn ? [{ session: [] }] : [],
    requestParams: { ...(route.pathParams.length ? { path: z.object(pathShape) } : {}), ...(query ? { query } : {}) },
    ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
    responses,
  };
}
