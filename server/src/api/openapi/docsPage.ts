import type { OpenApiDocument } from './document.ts';

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}
interface MediaType {
  schema?: Schema;
}
interface Response {
  description: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  tags?: string[];
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, Response>;
}

const METHODS = ['get', 'post', 'put', 'delete'] as const;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Descriptions use Markdown's `code` spans and nothing else. */
const prose = (text: string) => escape(text).replace(/`([^`]+)`/g, '<code>$1</code>');
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
const operationId = (method: string, path: string) => `${method}-${slug(path)}`;

/** A schema as indented JSON, its references to shared schemas as links to them. */
function schemaBlock(schema: Schema | undefined, label: string): string {
  if (!schema || Object.keys(schema).length === 0) return '';
  const json = escape(JSON.stringify(schema, null, 2)).replace(
    /&#34;#\/components\/schemas\/([\w.-]+)&#34;/g,
    (_match, name: string) => `&#34;<a href="#schema-${slug(name)}">#/components/schemas/${name}</a>&#34;`,
  );
  return `<details><summary>${escape(label)}</summary><pre tabindex="0"><code>${json}</code></pre></details>`;
}

function parametersTable(parameters: Parameter[]): string {
  if (parameters.length === 0) return '';
  const rows = parameters.map(
    (parameter) =>
      `<tr><th scope="row"><code>${escape(parameter.name)}</code></th><td>${parameter.in}</td><td>${parameter.required ? 'yes' : 'no'}</td><td><code>${escape(JSON.stringify(parameter.schema ?? {}))}</code></td></tr>`,
  );
  return `<table><caption>Parameters</caption><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Required</th><th scope="col">Schema</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function operationSection(method: string, path: string, operation: Operation): string {
  const id = operationId(method, path);
  const body = Object.entries(operation.requestBody?.content ?? {})
    .map(([type, media]) => schemaBlock(media.schema, `Request body, ${type}`))
    .join('');
  const responses = Object.entries(operation.responses).map(([status, response]) => {
    const content = Object.entries(response.content ?? {});
    const types = content.map(([type]) => `<code>${escape(type)}</code>`).join(', ');
    const schemas = content.map(([type, media]) => schemaBlock(media.schema, `${status} body, ${type}`)).join('');
    return `<li><strong>${status === 'default' ? 'Other errors' : status}</strong>: ${prose(response.description)}${types ? ` (${types})` : ''}${schemas}</li>`;
  });
  return `<section class="operation" aria-labelledby="${id}">
<h3 id="${id}"><span class="method ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p><strong>${prose(operation.summary ?? '')}</strong></p>${operation.description ? `<p>${prose(operation.description)}</p>` : ''}
<p class="access">${operation.security?.length ? 'Needs a signed-in session.' : 'No session needed.'}</p>
${parametersTable(operation.parameters ?? [])}${body}
<h4>Responses</h4><ul>${responses.join('')}</ul>
</section>`;
}

/** The document as one page, for people: the operations by tag, each with its parameters, body and answers. */
export function renderDocsPage(document: OpenApiDocument): string {
  const byTag = new Map<string, { method: string; path: string; operation: Operation }[]>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, operation }]);
    }
  }
  const contents = [...byTag].map(
    ([tag, entries]) =>
      `<li><a href="#${slug(tag)}">${escape(tag)}</a><ul>${entries
        .map(
          ({ method, path, operation }) =>
            `<li><a href="#${operationId(method, path)}">${method.toUpperCase()} <code>${escape(path)}</code></a>: ${prose(operation.summary ?? '')}</li>`,
        )
        .join('')}</ul></li>`,
  );
  const sections = [...byTag].map(
    ([tag, entries]) =>
      `<section aria-labelledby="${slug(tag)}"><h2 id="${slug(tag)}">${escape(tag)}</h2>${entries.map(({ method, path, operation }) => operationSection(method, path, operation)).join('')}</section>`,
  );
  const schemas = Object.entries((document.components?.schemas ?? {}) as Record<string, Schema>).map(
    ([name, schema]) =>
      `<section aria-labelledby="schema-${slug(name)}"><h3 id="schema-${slug(name)}">${escape(name)}</h3>${schemaBlock(schema, `Schema ${name}`)}</section>`,
  );
  const { title, version, description } = document.info;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}: reference</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; color: #1a1a1a; background: #fff; margin: 0 auto; max-width: 60rem; padding: 1rem; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.9em; }
code { overflow-wrap: anywhere; }
pre { background: #f4f4f4; padding: 0.75rem; overflow: auto; max-height: 30rem; }
a { color: #0b4f8a; }
a:focus-visible, summary:focus-visible, pre:focus-visible { outline: 3px solid #0b4f8a; outline-offset: 2px; }
.operation { border-top: 1px solid #ccc; padding-top: 0.5rem; margin-top: 1.5rem; }
.method { display: inline-block; min-width: 4.5rem; text-align: center; color: #fff; border-radius: 4px; padding: 0 0.4rem; font-size: 0.85em; }
.get { background: #0b4f8a; } .post { background: #1e6b2e; } .put { background: #7a4a00; } .delete { background: #a11d1d; }
.access { color: #444; }
table { border-collapse: collapse; margin: 0.5rem 0; max-width: 100%; } caption { text-align: left; font-weight: bold; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
summary { cursor: pointer; }
@media (max-width: 30rem) { body { padding: 0.5rem; } th, td { padding: 0.25rem; } }
</style>
</head>
<body>
<header>
<h1>${escape(title)} <small>${escape(version)}</small></h1>
<p>${prose(description ?? '')}</p>
<p>The same as an OpenAPI 3.1 document: <a href="/api/openapi.json">/api/openapi.json</a>.</p>
</header>
<nav aria-label="Operations"><h2>Contents</h2><ul>${contents.join('')}<li><a href="#schemas">Shared schemas</a></li></ul></nav>
<main>
${sections.join('\n')}
<section aria-labelledby="schemas"><h2 id="schemas">Shared schemas</h2>${schemas.join('')}</section>
</main>
</body>
</html>
`;
}
