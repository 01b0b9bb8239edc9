import { describe, expect, it } from 'vitest';
import { renderApiReference } from './api-reference.js';

const URLS = { documentUrl: '/openapi.json', stylesheetUrl: '/docs/reference.css' };

const document = {
  openapi: '3.1.0',
  info: { title: 'Example', version: '2', description: 'Says `code` and <b>no markup</b>' },
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        tags: ['things'],
        summary: 'Read a "thing"',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          200: {
            description: 'The thing',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          404: { description: 'Not found (`thing_not_found`)' },
        },
      },
    },
  },
  webhooks: {
    'thing.changed': {
      post: {
        operationId: 'onThingChanged',
        tags: ['webhook events'],
        summary: 'A thing changed',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
        },
        responses: { '2XX': { description: 'Delivered' } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'th_… <id>' },
          size: { anyOf: [{ type: 'integer', minimum: 1, maximum: 9 }, { type: 'null' }] },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        },
        required: ['id'],
      },
    },
  },
};

describe('The API reference page', () => {
  const page = renderApiReference(document, URLS);

  it('escapes the document’s text and shows its code spans as code', () => {
    expect(page).toContain('Says <code>code</code> and &lt;b&gt;no markup&lt;/b&gt;');
    expect(page).toContain('Read a &quot;thing&quot;');
    expect(page).toContain('th_… &lt;id&gt;');
    expect(page).not.toContain('<b>');
  });

  it('gives each operation a heading with its method and path, and links named schemas to their entry', () => {
    expect(page).toContain(
      '<h3 id="operation-getThing-title"><span class="method method-get">GET</span> <code class="path">/things/{id}</code></h3>',
    );
    expect(page).toContain('<a href="#schema-Thing">Thing</a>');
    expect(page).toContain('<article class="schema" id="schema-Thing"');
    expect(page).toContain('<code>thing_not_found</code>');
  });

  it('says of each property its type, bounds, whether it may be null and whether it is required', () => {
    expect(page).toContain(
      '<code class="name">id</code>: <span class="type">string</span> <span class="required">required</span>',
    );
    expect(page).toContain('<span class="constraints">(1 to 9)</span> or null');
    expect(page).toContain('array of string <span class="constraints">(at most 3 items)</span>');
  });

  it('lists the events the service sends, from the document’s webhooks, apart from the operations it answers', () => {
    expect(page).toContain('<a href="#webhook-events">Webhook events</a>');
    expect(page).toContain(
      '<article class="webhook" id="operation-onThingChanged" aria-labelledby="operation-onThingChanged-title">',
    );
    expect(page).toContain(
      '<span class="method method-post">POST</span> <code class="path">thing.changed</code> <span class="where">to your endpoint</span>',
    );
    const webhookSection = page.slice(page.indexOf('id="webhook-events"'), page.indexOf('id="schemas"'));
    expect(webhookSection).toContain('<a href="#schema-Thing">Thing</a>');
    expect(webhookSection).not.toContain('getThing');
  });

  it('has no webhook section for a document without webhooks', () => {
    const { webhooks: _, ...withoutWebhooks } = document;
    expect(renderApiReference(withoutWebhooks, URLS)).not.toContain('webhook-events');
  });
});
