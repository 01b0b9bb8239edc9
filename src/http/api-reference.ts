/**
 * The API reference at /docs (docs/management-api.md "Management API"): GET /openapi.json's document rendered as one static,
 * accessible HTML page — landmarks, one heading per operation, native disclosure widgets for schemas, no
 * script — so that it reads the same in any browser or screen reader and needs nothing from elsewhere.
 * A pure function of the document; src/http/openapi.ts serves it.
 */

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'] as const;
/** zod writes these bounds on every integer: they say nothing a reader needs. */
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Prose from the document: escaped, with its `code spans` as <code>. */
function prose(value: string): string {
  return value
    .split(/(`[^`]+`)/)
    .map((part) =>
      part.length > 2 && part.startsWith('`') && part.endsWith('`')
        ? `<code>${escapeHtml(part.slice(1, -1))}</code>`
        : escapeHtml(part),
    )
    .join('');
}

/** An id for an element: what a link to it names. */
function anchor(kind: 'operation' | 'schema' | 'tag', name: string): string {
  return `${kind}-${name.replace(/[^A-Za-z0-9_-]+/g, '-')}`;
}

const SCHEMA_REF = '#/components/schemas/';

function literal(value: unknown): string {
  return `<code>${escapeHtml(JSON.stringify(value))}</code>`;
}

/** A bound of a schema, or undefined: zod's bounds of every integer (the safe integers) say nothing. */
function bound(schema: Json, keyword: string): number | undefined {
  const value = schema[keyword];
  return typeof value === 'number' && Math.abs(value) < SAFE_INTEGER ? value : undefined;
}

/** "1 to 1000", "at least 1", "at most 200" (and `unit`), or nothing. */
function range(min: number | undefined, max: number | undefined, unit = ''): string[] {
  const suffix = unit ? ` ${unit}` : '';
  if (min !== undefined && max !== undefined) return [`${String(min)} to ${String(max)}${suffix}`];
  if (min !== undefined) return [`at least ${String(min)}${suffix}`];
  if (max !== undefined) return [`at most ${String(max)}${suffix}`];
  return [];
}

/** What a schema's own keywords say besides its type: bounds, format, pattern, default. */
function constraints(schema: Json): string[] {
  return [
    ...(typeof schema.format === 'string' ? [`format ${escapeHtml(schema.format)}`] : []),
    ...range(bound(schema, 'minLength'), bound(schema, 'maxLength'), 'characters'),
    ...range(bound(schema, 'minimum'), bound(schema, 'maximum')),
    ...range(bound(schema, 'minItems'), bound(schema, 'maxItems'), 'items'),
    ...(typeof schema.pattern === 'string' ? [`matching <code>${escapeHtml(schema.pattern)}</code>`] : []),
    ...('default' in schema ? [`default ${literal(schema.default)}`] : []),
  ];
}

/** A schema's type in a few words (links for named schemas), and what to list below it. */
interface Shape {
  type: string;
  details: string;
}

function shapeOf(schema: unknown, depth: number): Shape {
  if (
    !isObject(schema) ||
    Object.keys(schema).length === 0 ||
    (Object.keys(schema).length === 1 && 'description' in schema)
  )
    return { type: 'any value', details: '' };
  const ref = text(schema.$ref);
  if (ref.startsWith(SCHEMA_REF)) {
    const name = ref.slice(SCHEMA_REF.length);
    return { type: `<a href="#${anchor('schema', name)}">${escapeHtml(name)}</a>`, details: '' };
  }
  const variants = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : undefined;
  if (variants) {
    const isNull = (variant: unknown) => isObject(variant) && variant.type === 'null';
    const others = variants.filter((variant) => !isNull(variant));
    const nullable = others.length < variants.length ? ' or null' : '';
    if (others.length === 1) {
      const only = shapeOf(others[0], depth);
      return { type: `${only.type}${nullable}`, details: only.details };
    }
    const items = others.map((variant) => {
      const shape = shapeOf(variant, depth + 1);
      return `<li>${shape.type}${shape.details}</li>`;
    });
    return {
      type: `one of${nullable ? ' these, or null' : ''}`,
      details: `<ul class="variants">${items.join('')}</ul>`,
    };
  }
  if ('const' in schema) return { type: literal(schema.const), details: '' };
  if (Array.isArray(schema.enum))
    return { type: `one of ${schema.enum.map((value) => literal(value)).join(', ')}`, details: '' };
  const said = constraints(schema);
  const suffix = said.length > 0 ? ` <span class="constraints">(${said.join(', ')})</span>` : '';
  if (schema.type === 'array') {
    if (Array.isArray(schema.prefixItems)) {
      const items = schema.prefixItems.map((item) => shapeOf(item, depth + 1).type).join(', ');
      return { type: `list of ${items}${suffix}`, details: '' };
    }
    const item = shapeOf(schema.items, depth);
    return { type: `array of ${item.type}${suffix}`, details: item.details };
  }
  if (schema.type === 'object' || isObject(schema.properties)) {
    return { type: `object${suffix}`, details: objectDetails(schema, depth) };
  }
  const type = Array.isArray(schema.type)
    ? schema.type.map(String).join(' or ')
    : text(schema.type) || 'any value';
  return { type: `${escapeHtml(type)}${suffix}`, details: '' };
}

/** An object's properties, then what any other key may hold. */
function objectDetails(schema: Json, depth: number): string {
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const items = Object.entries(isObject(schema.properties) ? schema.properties : {}).map(([name, property]) =>
    propertyItem(name, property, required.has(name), depth + 1),
  );
  const extra = schema.additionalProperties;
  if (isObject(extra)) {
    const names = isObject(schema.propertyNames) ? text(schema.propertyNames.pattern) : '';
    const key = names ? `any key matching <code>${escapeHtml(names)}</code>` : 'any other key';
    const shape = shapeOf(extra, depth + 1);
    items.push(
      `<li><span class="name">${key}</span>: <span class="type">${shape.type}</span>${shape.details}</li>`,
    );
  }
  return items.length > 0 ? `<ul class="properties">${items.join('')}</ul>` : '';
}

function propertyItem(name: string, schema: unknown, required: boolean, depth: number): string {
  const shape = shapeOf(schema, depth);
  const description = isObject(schema) ? text(schema.description) : '';
  return [
    `<li><code class="name">${escapeHtml(name)}</code>: <span class="type">${shape.type}</span>`,
    required ? ' <span class="required">required</span>' : '',
    description ? ` — ${prose(description)}` : '',
    shape.details,
    '</li>',
  ].join('');
}

/** A schema in full: its type, description and properties. */
function schemaBlock(schema: unknown): string {
  const shape = shapeOf(schema, 0);
  const description = isObject(schema) && !text(schema.$ref) ? text(schema.description) : '';
  return [
    `<p class="schema-type">${shape.type}</p>`,
    description ? `<p>${prose(description)}</p>` : '',
    shape.details,
  ].join('');
}

function contentBlock(content: unknown): string {
  if (!isObject(content)) return '';
  return Object.entries(content)
    .map(([mediaType, media]) => {
      const schema = isObject(media) ? media.schema : undefined;
      return `<div class="media"><p><code>${escapeHtml(mediaType)}</code></p>${schemaBlock(schema)}</div>`;
    })
    .join('');
}

function parametersBlock(parameters: unknown): string {
  if (!Array.isArray(parameters) || parameters.length === 0) return '';
  const items = parameters.filter(isObject).map((parameter) => {
    const shape = shapeOf(parameter.schema, 0);
    const description =
      text(parameter.description) || (isObject(parameter.schema) ? text(parameter.schema.description) : '');
    return [
      `<li><code class="name">${escapeHtml(text(parameter.name))}</code> <span class="where">(${escapeHtml(text(parameter.in))})</span>: `,
      `<span class="type">${shape.type}</span>`,
      parameter.required === true ? ' <span class="required">required</span>' : '',
      description ? ` — ${prose(description)}` : '',
      '</li>',
    ].join('');
  });
  return `<h4>Parameters</h4><ul class="properties">${items.join('')}</ul>`;
}

function headersBlock(headers: unknown): string {
  if (!isObject(headers) || Object.keys(headers).length === 0) return '';
  const items = Object.entries(headers).map(([name, header]) => {
    const description = isObject(header) ? text(header.description) : '';
    return `<li><code class="name">${escapeHtml(name)}</code>${description ? ` — ${prose(description)}` : ''}</li>`;
  });
  return `<p>Headers:</p><ul class="properties">${items.join('')}</ul>`;
}

function responsesBlock(responses: unknown): string {
  if (!isObject(responses)) return '';
  const rows = Object.entries(responses).map(([status, response]) => {
    const body = isObject(response) ? response : {};
    const content = contentBlock(body.content);
    return [
      `<dt><span class="status status-${escapeHtml(status.charAt(0))}xx">${escapeHtml(status)}</span></dt>`,
      `<dd><p>${prose(text(body.description))}</p>`,
      headersBlock(body.headers),
      content ? `<details><summary>Body</summary>${content}</details>` : '',
      '</dd>',
    ].join('');
  });
  return `<h4>Responses</h4><dl class="responses">${rows.join('')}</dl>`;
}

function securityLine(operation: Json, document: Json): string {
  const requirements = Array.isArray(operation.security) ? operation.security : document.security;
  if (!Array.isArray(requirements)) return '';
  const schemes = requirements.filter(isObject).flatMap((requirement) => Object.keys(requirement));
  const words =
    schemes.length === 0
      ? 'none'
      : schemes
          .map((scheme) => (scheme === 'bearer' ? 'a bearer token' : `the ${escapeHtml(scheme)}`))
          .join(' or ');
  return `<p class="security">Credential: ${words}</p>`;
}

interface OperationEntry {
  id: string;
  method: string;
  path: string;
  tag: string;
  operation: Json;
}

/** The operations of `paths`, or of `webhooks` (OpenAPI 3.1: what the service sends, keyed by event type). */
function operationsOf(document: Json, field: 'paths' | 'webhooks'): OperationEntry[] {
  const paths = isObject(document[field]) ? document[field] : {};
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = isObject(item) ? item[method] : undefined;
      if (!isObject(operation)) return [];
      const id = text(operation.operationId) || `${method}-${path}`;
      const tags = Array.isArray(operation.tags) ? operation.tags.map(String) : [];
      return [{ id, method, path, tag: tags[0] ?? 'other', operation }];
    }),
  );
}

function operationArticle(entry: OperationEntry, document: Json, kind: 'operation' | 'webhook'): string {
  const { operation } = entry;
  const id = anchor('operation', entry.id);
  const requestBody = isObject(operation.requestBody) ? operation.requestBody : undefined;
  // A webhook is keyed by its event type, not a path: the service sends it to the endpoint's URL.
  const target =
    kind === 'webhook'
      ? `<code class="path">${escapeHtml(entry.path)}</code> <span class="where">to your endpoint</span>`
      : `<code class="path">${escapeHtml(entry.path)}</code>`;
  return [
    `<article class="${kind}" id="${id}" aria-labelledby="${id}-title">`,
    `<h3 id="${id}-title"><span class="method method-${entry.method}">${entry.method.toUpperCase()}</span> ${target}</h3>`,
    `<p class="summary">${prose(text(operation.summary))} <span class="operation-id">operationId <code>${escapeHtml(entry.id)}</code></span></p>`,
    text(operation.description) ? `<p>${prose(text(operation.description))}</p>` : '',
    securityLine(operation, document),
    parametersBlock(operation.parameters),
    requestBody
      ? `<h4>Request body${requestBody.required === true ? ' (required)' : ''}</h4><details><summary>Body</summary>${contentBlock(requestBody.content)}</details>`
      : '',
    responsesBlock(operation.responses),
    '</article>',
  ].join('');
}

function contentsItem(entry: OperationEntry): string {
  return `<li><a href="#${anchor('operation', entry.id)}"><span class="method method-${entry.method}">${entry.method.toUpperCase()}</span> ${escapeHtml(entry.path)}</a></li>`;
}

/** The page at /docs for `document`; `documentUrl` is where the JSON is served, `stylesheetUrl` its styles. */
export function renderApiReference(
  document: object,
  { documentUrl, stylesheetUrl }: { documentUrl: string; stylesheetUrl: string },
): string {
  const doc = document as Json;
  const info = isObject(doc.info) ? doc.info : {};
  const title = text(info.title) || 'API reference';
  const operations = operationsOf(doc, 'paths');
  const webhooks = operationsOf(doc, 'webhooks');
  const tags = [...new Set(operations.map((entry) => entry.tag))];
  const byTag = (tag: string) => operations.filter((entry) => entry.tag === tag);
  const contents = tags
    .map(
      (tag) =>
        `<li><a href="#${anchor('tag', tag)}">${escapeHtml(tag)}</a><ul>${byTag(tag)
          .map(contentsItem)
          .join('')}</ul></li>`,
    )
    .join('');
  const sections = tags
    .map(
      (tag) =>
        `<section aria-labelledby="${anchor('tag', tag)}"><h2 id="${anchor('tag', tag)}">${escapeHtml(tag)}</h2>${byTag(
          tag,
        )
          .map((entry) => operationArticle(entry, doc, 'operation'))
          .join('')}</section>`,
    )
    .join('');
  const webhookSection =
    webhooks.length === 0
      ? ''
      : `<section aria-labelledby="webhook-events"><h2 id="webhook-events">Webhook events</h2><p>What the service sends to a webhook endpoint, one request per event (the document's <code>webhooks</code>).</p>${webhooks
          .map((entry) => operationArticle(entry, doc, 'webhook'))
          .join('')}</section>`;
  const components =
    isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const schemas = Object.entries(components)
    .map(
      ([name, schema]) =>
        `<article class="schema" id="${anchor('schema', name)}" aria-labelledby="${anchor('schema', name)}-title"><h3 id="${anchor('schema', name)}-title">${escapeHtml(name)}</h3>${schemaBlock(schema)}</article>`,
    )
    .join('');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)} API</title>`,
    `<link rel="stylesheet" href="${escapeHtml(stylesheetUrl)}">`,
    '</head>',
    '<body>',
    '<a class="skip" href="#main">Skip to the operations</a>',
    '<header>',
    `<h1>${escapeHtml(title)} API <span class="version">version ${escapeHtml(text(info.version))}</span></h1>`,
    `<p>${prose(text(info.description))}</p>`,
    `<p>The OpenAPI ${escapeHtml(text(doc.openapi))} document: <a href="${escapeHtml(documentUrl)}">${escapeHtml(documentUrl)}</a> (for generated clients).</p>`,
    '</header>',
    '<nav aria-labelledby="contents-title">',
    `<h2 id="contents-title">Operations</h2><ul class="contents">${contents}${
      webhooks.length === 0
        ? ''
        : `<li><a href="#webhook-events">Webhook events</a><ul>${webhooks.map(contentsItem).join('')}</ul></li>`
    }<li><a href="#schemas">Schemas</a></li></ul>`,
    '</nav>',
    '<main id="main">',
    sections,
    webhookSection,
    `<section aria-labelledby="schemas"><h2 id="schemas">Schemas</h2>${schemas}</section>`,
    '</main>',
    '</body>',
    '</html>',
  ].join('\n');
}

/**
 * The page's styles: readable at 390 px (nothing wider than the screen) and on a large one, every text at
 * least 4.5:1 against its background (WCAG AA).
 */
export const API_REFERENCE_CSS = `
:root { color-scheme: light; --text: #1f2328; --muted: #4d5560; --line: #d0d7de; --code: #f3f4f6; --link: #0a58ca; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--text); background: #fff; overflow-wrap: anywhere; }
a { color: var(--link); }
a:focus-visible, summary:focus-visible { outline: 3px solid #1f6feb; outline-offset: 2px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; background: var(--code); padding: 0 0.2em; border-radius: 3px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { position: static; }
h1 { font-size: 1.8rem; margin: 0.5rem 0; }
h2 { font-size: 1.4rem; margin: 2rem 0 0.5rem; padding-bottom: 0.25rem; border-bottom: 2px solid var(--line); text-transform: capitalize; }
h3 { font-size: 1.1rem; margin: 0 0 0.5rem; }
h4 { font-size: 1rem; margin: 1rem 0 0.25rem; }
.version, .operation-id, .where, .constraints, .security { color: var(--muted); font-weight: normal; font-size: 0.9rem; }
.contents, .contents ul { list-style: none; padding-left: 0; }
.contents ul { padding-left: 1rem; margin: 0.25rem 0 0.75rem; }
.contents > li > a { font-weight: 600; text-transform: capitalize; }
.operation, .webhook, .schema { border: 1px solid var(--line); border-radius: 6px; padding: 1rem; margin: 1rem 0; }
.method { display: inline-block; min-width: 4.2em; text-align: center; font: 700 0.8rem/1.6 ui-monospace, monospace; border-radius: 3px; padding: 0 0.3em; color: #fff; background: #4d5560; }
.method-get { background: #0a58ca; }
.method-post { background: #146c43; }
.method-put, .method-patch { background: #8a4b00; }
.method-delete { background: #b02a37; }
.path { background: none; padding: 0; font-size: 1rem; }
.responses dt { margin-top: 0.75rem; }
.responses dd { margin: 0.25rem 0 0 1rem; }
.status { font: 700 0.9rem ui-monospace, monospace; padding: 0 0.3em; border-radius: 3px; color: #fff; background: #4d5560; }
.status-2xx, .status-3xx { background: #146c43; }
.status-4xx { background: #8a4b00; }
.status-5xx { background: #b02a37; }
.required { color: #b02a37; font-size: 0.85rem; }
.properties, .variants { padding-left: 1.25rem; margin: 0.25rem 0; }
summary { cursor: pointer; color: var(--link); }
.media { margin: 0.5rem 0 0.5rem 1rem; }
.schema-type { margin: 0.25rem 0; }
`;
