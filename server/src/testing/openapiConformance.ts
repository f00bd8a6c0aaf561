import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenApiDocument } from '../api/openapi/document.ts';
import type { Exchange } from './httpClient.ts';

interface MediaType {
  schema?: object;
}
interface Operation {
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

const DOCUMENT_ID = 'openapi.json';
const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/** A JSON pointer into the document, as a reference ajv resolves. */
const pointer = (...segments: string[]) =>
  `${DOCUMENT_ID}#/${segments.map((segment) => encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;

/**
 * Real exchanges against an OpenAPI document: the operation exists, the status is one it documents
 * (2xx explicitly; errors may fall under `default`), the media type is the documented one, and the
 * JSON body, and the JSON request body of a success, validate against the document's own schemas.
 */
export class OpenApiConformance {
  readonly #document: OpenApiDocument;
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #validators = new Map<string, ValidateFunction>();
  /** Templates with fewer parameters first: `/api/forms/transfer-ownership` before `/api/forms/{id}`. */
  readonly #templates: { template: string; pattern: RegExp }[];

  constructor(document: OpenApiDocument) {
    this.#document = document;
    addFormats.default(this.#ajv);
    this.#ajv.addSchema(document as object, DOCUMENT_ID);
    this.#templates = Object.keys(document.paths ?? {})
      .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`), params: template.split('{').length }))
      .sort((a, b) => a.params - b.params);
  }

  /** `GET /api/forms/{id}` for `GET /api/forms/0123…?x=1`, or undefined when the document has no such operation. */
  operationOf(method: string, path: string): string | undefined {
    const match = this.#match(method, path);
    return match && `${method.toUpperCase()} ${match.template}`;
  }

  /** What in `exchange` the document does not allow; empty when it conforms. */
  problems(exchange: Exchange): string[] {
    const what = `${exchange.method} ${exchange.path} → ${exchange.status}`;
    const match = this.#match(exchange.method, exchange.path);
    if (!match) return [`${what}: no such operation in the document`];
    const { template, method, operation } = match;
    const success = exchange.status < 400;
    const status = String(exchange.status) in operation.responses ? String(exchange.status) : success ? undefined : 'default';
    if (!status) return [`${what}: status not documented for ${this.operationOf(exchange.method, exchange.path)}`];
    const problems: string[] = [];
    const content = operation.responses[status]!.content;
    const media = content?.[exchange.contentType];
    if (content && !media) problems.push(`${what}: answered ${exchange.contentType || 'no content type'}, documented ${Object.keys(content).join(', ')}`);
    if (media?.schema)
      problems.push(...this.#check(exchange.body, what, 'paths', template, method, 'responses', status, 'content', exchange.contentType, 'schema'));
    const requested = operation.requestBody?.content['application/json'];
    if (success && requested?.schema && exchange.requestBody !== undefined) {
      problems.push(
        ...this.#check(exchange.requestBody, `${what} (request body)`, 'paths', template, method, 'requestBody', 'content', 'application/json', 'schema'),
      );
    }
    return problems;
  }

  #match(method: string, path: string): { template: string; method: string; operation: Operation } | undefined {
    const pathname = path.split('?')[0]!;
    const lower = method.toLowerCase();
    if (!METHODS.includes(lower)) return undefined;
    for (const { template, pattern } of this.#templates) {
      const operation = (this.#document.paths?.[template] as Record<string, Operation> | undefined)?.[lower];
      if (operation && pattern.test(pathname)) return { template, method: lower, operation };
    }
    return undefined;
  }

  #check(value: unknown, what: string, ...segments: string[]): string[] {
    const ref = pointer(...segments);
    let validate = this.#validators.get(ref);
    if (!validate) this.#validators.set(ref, (validate = this.#ajv.compile({ $ref: ref })));
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) => `${what}: ${error.instancePath || '(body)'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`,
    );
  }
}
