import { existsSync, readFileSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_DATA, type WebhookEvent } from '../../src/contract/webhook-events.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/contract/webhooks.js';
import { DEFAULT_RETRY_SCHEDULE } from '../../src/core/delivery-schedule.js';
import { REPO_ROOT } from '../cli/cli-process.js';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { sqliteBackend, type TestDatabase } from '#test/support/databases.js';
import { publishEveryEvent } from '#test/support/fixtures/every-event.js';
import { eventOf } from '#test/support/webhook-receiver.js';

/** Every `src` and `href` of the page, resolved against the page's own URL. */
function referencesOf(html: string, pageUrl: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map(
    ([, reference = '']) => new URL(reference, `http://service.test${pageUrl}`).href,
  );
}

describe('The API reference at /docs', () => {
  let database: TestDatabase;
  let testApp: TestApp;

  beforeAll(async () => {
    database = await sqliteBackend.create();
    testApp = await startTestApp(database);
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  const get = (url: string) => testApp.app.inject({ method: 'GET', url });

  it('serves an HTML page under a Content-Security-Policy that allows no script at all and no framing', async () => {
    const response = await get('/docs');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<title>Brand Context API</title>');
    expect(response.body).not.toMatch(/<script|\son[a-z]+=|style="/i);
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('script-src');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('DENY');
  });

  it('serves everything the page names from this service, none from elsewhere', async () => {
    for (const pageUrl of ['/docs', '/docs/']) {
      const page = await get(pageUrl);
      const paths = new Set(referencesOf(page.body, pageUrl).map((reference) => new URL(reference)));
      const served = [...paths]
        .filter((url) => url.origin === 'http://service.test')
        .map((url) => url.pathname);
      expect([...paths].filter((url) => url.origin !== 'http://service.test')).toEqual([]);
      expect(new Set(served)).toEqual(new Set(['/docs/reference.css', '/openapi.json', pageUrl]));
      const stylesheet = await get('/docs/reference.css');
      expect(stylesheet.statusCode).toBe(200);
      expect(stylesheet.headers['content-type']).toBe('text/css; charset=utf-8');
      expect(stylesheet.body).not.toMatch(/@import|url\(/);
    }
  });

  it('shows every operation of GET /openapi.json under its operationId, and every schema it names', async () => {
    const document = (await get('/openapi.json')).json<{
      paths: Record<string, Record<string, { operationId: string }>>;
      components: { schemas: Record<string, unknown> };
    }>();
    const page = (await get('/docs')).body;
    const operationIds = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    const shown = [...page.matchAll(/<article class="operation" id="operation-([A-Za-z]+)"/g)].map(
      ([, id]) => id,
    );
    expect(shown.sort()).toEqual(operationIds.sort());
    for (const name of Object.keys(document.components.schemas))
      expect(page, name).toContain(`id="schema-${name}"`);
    // Every link within the page leads somewhere on it.
    for (const [, target = ''] of page.matchAll(/href="#([^"]+)"/g)) expect(page).toContain(`id="${target}"`);
  });
});

/** The part of a docs page under `heading`, up to the next heading of the same level or higher. */
function sectionOf(markdown: string, heading: string): string {
  const level = heading.indexOf(' ');
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`the page has no "${heading}"`);
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${String(level)}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/**
 * Where `sample` is not shaped like `actual`: a missing or extra field, or another type. `null` stands for a
 * value of any type, since nullable fields hold one or the other.
 */
function shapeDifferences(sample: unknown, actual: unknown, path: string): string[] {
  if (sample === null || actual === null) return [];
  if (Array.isArray(sample) || Array.isArray(actual)) {
    if (!Array.isArray(sample) || !Array.isArray(actual)) return [`${path} is not an array in both`];
    const [first, actualFirst] = [sample[0] as unknown, actual[0] as unknown];
    return first === undefined || actualFirst === undefined
      ? []
      : shapeDifferences(first, actualFirst, `${path}[0]`);
  }
  if (typeof sample === 'object' && typeof actual === 'object') {
    const [have, sent] = [sample as Record<string, unknown>, actual as Record<string, unknown>];
    return [...new Set([...Object.keys(have), ...Object.keys(sent)])].flatMap((key) => {
      if (!(key in sent)) return [`${path}.${key} is not sent`];
      if (!(key in have)) return [`${path}.${key} is sent but not shown`];
      return shapeDifferences(have[key], sent[key], `${path}.${key}`);
    });
  }
  return typeof sample === typeof actual
    ? []
    : [`${path} is a ${typeof actual}, shown as a ${typeof sample}`];
}

describe('docs/webhooks.md', () => {
  let database: TestDatabase;
  let testApp: TestApp;
  let webhooksPage: string;
  let configurationPage: string;
  /** One event of each type, as the service queued it for an endpoint that subscribes to every event. */
  const sent = new Map<string, WebhookEvent>();

  /** The events table: each row's types and its sample `data`. */
  function eventRows(): { types: string[]; sample: unknown }[] {
    return sectionOf(webhooksPage, '## Events')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((row) => {
        const cells = row.split(' | ');
        const types = [...(cells[0] ?? '').matchAll(/`([^`]+)`/g)].map(([, type = '']) => type);
        const sample = /`(\{.*\})` \|$/.exec(row)?.[1];
        return { types, sample: sample === undefined ? undefined : (JSON.parse(sample) as unknown) };
      });
  }

  beforeAll(async () => {
    webhooksPage = await readFile(`${REPO_ROOT}docs/webhooks.md`, 'utf8');
    configurationPage = await readFile(`${REPO_ROOT}docs/configuration.md`, 'utf8');
    database = await sqliteBackend.create();
    testApp = await startTestApp(database);
    for (const payload of await publishEveryEvent(testApp)) {
      const event = eventOf(payload);
      sent.set(event.type, event);
    }
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  it('lists every event type in its events table, each once, and no other', () => {
    const listed = eventRows().flatMap((row) => row.types);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });

  it('shows for every event type a sample `data` shaped like what the service sends, valid by its schema', () => {
    // The setup published every type: a type it missed would be a sample nothing checks.
    expect([...sent.keys()].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const { types, sample } of eventRows()) {
      expect(sample, types.join(', ')).toBeTypeOf('object');
      for (const type of types) {
        expect(shapeDifferences(sample, sent.get(type)?.data, type)).toEqual([]);
        const known = WEBHOOK_EVENT_TYPES.find((candidate) => candidate === type);
        expect(known, type).toBeDefined();
        if (known) expect(WEBHOOK_EVENT_DATA[known].safeParse(sample).error?.issues, type).toBeUndefined();
      }
    }
  });

  it('shows the envelope every event is sent in', () => {
    const example = /\n## Events\n[\s\S]*?```json\n([\s\S]*?)```/.exec(webhooksPage)?.[1];
    const envelope = eventOf(example ?? '');
    expect(shapeDifferences(envelope, sent.get(envelope.type), 'envelope')).toEqual([]);
    expect(envelope.id).toMatch(/^evt_/);
  });

  it('names every delivery setting in the configuration table, with the default retry schedule', () => {
    const configuration = configurationPage;
    for (const variable of [
      'DELIVERY_WORKERS',
      'DELIVERY_RETRY_SCHEDULE',
      'DELIVERY_LEASE_SECONDS',
      'WEBHOOK_ALLOW_PRIVATE_URLS',
      'BRAND_CONTEXT_ENCRYPTION_KEY',
    ]) {
      expect(configuration).toMatch(new RegExp(`^\\| \`${variable}\` \\|`, 'm'));
    }
    expect(configuration).toContain(`| \`DELIVERY_RETRY_SCHEDULE\` | \`${DEFAULT_RETRY_SCHEDULE}\` |`);
    expect(webhooksPage).toContain(`\`${DEFAULT_RETRY_SCHEDULE}\``);
  });
});

/** The lines of `markdown` outside fenced code blocks (indented ones, in list items, included). */
function proseLines(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) fence = marker;
    else if (fence !== undefined && marker?.startsWith(fence) === true && line.trim() === marker)
      fence = undefined;
    else if (fence === undefined) lines.push(line);
  }
  return lines;
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const anchor = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replaceAll(' ', '-');
    const repeats = seen.get(anchor) ?? 0;
    seen.set(anchor, repeats + 1);
    anchors.add(repeats === 0 ? anchor : `${anchor}-${String(repeats)}`);
  }
  return anchors;
}

/**
 * Every relative link of the page at `page` (a path in the repository) that leads nowhere: to no file, or to a
 * heading its page does not have. `read` gives a file's text, '' for a directory, undefined when there is none.
 */
function brokenLinks(page: string, markdown: string, read: (path: string) => string | undefined): string[] {
  // Code spans may run over a line break; a link inside one is no link.
  const prose = proseLines(markdown)
    .join('\n')
    .replace(/`[^`]*`/g, '');
  const targets = [
    ...[...prose.matchAll(/\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(([, target = '']) => target),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s+<?([^\s>]+)/gm)].map(([, target = '']) => target),
  ];
  return targets.filter((target) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return false;
    const [path = '', anchor] = target.split('#');
    const file =
      path === '' ? page : path.startsWith('/') ? path.slice(1) : posix.join(posix.dirname(page), path);
    const text = read(file);
    if (text === undefined) return true;
    if (anchor === undefined) return false;
    return !file.endsWith('.md') || !headingAnchors(text).has(decodeURIComponent(anchor));
  });
}

describe('Links between the docs', () => {
  /** The pages a person reads, as paths in the repository. */
  const pages: string[] = [];
  /** Each file's text by its path, read once ('' for a directory, undefined for none). */
  const files = new Map<string, string | undefined>();
  const read = (path: string) => {
    if (!files.has(path)) {
      const full = `${REPO_ROOT}${path}`;
      files.set(
        path,
        existsSync(full) ? (statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8')) : undefined,
      );
    }
    return files.get(path);
  };

  beforeAll(async () => {
    const docs = (await readdir(`${REPO_ROOT}docs`)).filter((name) => name.endsWith('.md'));
    pages.push('README.md', 'CHANGELOG.md', 'web/README.md', ...docs.map((name) => `docs/${name}`));
  });

  it('finds a link to a missing file, a missing heading or an anchor of a file without headings, and no other', () => {
    const site = new Map([
      [
        'docs/a.md',
        '# Page A\n\n## Time on `several` nodes: why?\n\n## Notes\n\n## Notes\n\n```sh\n# not a heading\n```\n',
      ],
      ['LICENSE', 'MIT'],
    ]);
    const page = [
      '[ok](a.md) [ok](a.md#page-a) [ok](a.md#time-on-several-nodes-why) [ok](a.md#notes-1) [ok](../LICENSE)',
      '[ok](#here) [ok](https://example.com/#nowhere) `[code](nowhere.md)` [ok](/docs/a.md#notes)',
      '[no file](b.md) [no heading](a.md#not-a-heading) [no anchor](../LICENSE#mit) [no repeat](a.md#notes-2)',
      '[no heading here](#there)',
      '',
      '## Here',
    ].join('\n');
    expect(brokenLinks('docs/c.md', page, (path) => (path === 'docs/c.md' ? page : site.get(path)))).toEqual([
      'b.md',
      'a.md#not-a-heading',
      '../LICENSE#mit',
      'a.md#notes-2',
      '#there',
    ]);
  });

  it('leads every relative link of README.md, CHANGELOG.md, web/README.md and docs/ to a file that exists, and to a heading it has', () => {
    const broken = pages.flatMap((page) =>
      brokenLinks(page, read(page) ?? '', read).map((target) => `${page}: ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('lists every page of docs/ in its index, docs/README.md', () => {
    const index = read('docs/README.md') ?? '';
    const listed = [...index.matchAll(/\]\(([\w-]+\.md)\)/g)].map(([, page = '']) => `docs/${page}`);
    const docsPages = pages.filter((page) => page.startsWith('docs/') && page !== 'docs/README.md');
    expect(new Set(listed)).toEqual(new Set(docsPages));
  });
});
