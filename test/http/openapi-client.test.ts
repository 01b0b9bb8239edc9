import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listenOnLoopback } from '#test/support/app.js';
import { describeEachBackend } from '#test/support/databases.js';
import { PASSWORD } from '#test/support/fixtures/auth.js';
import { useFixture } from '#test/support/http-fixture.js';
import { addUser } from '#test/support/users.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The client a user would write (type-checked here against the generated types; outside the project's tsc). */
const FLOW = fileURLToPath(new URL('./openapi-client/flow.ts', import.meta.url));
/** A webhook receiver's handling of events, typed by the document's `webhooks` (type-checked only). */
const RECEIVER = fileURLToPath(new URL('./openapi-client/receiver.ts', import.meta.url));
const OPENAPI_TYPESCRIPT = join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
/** Generating and type-checking take seconds each, more on a busy machine. */
const SLOW = 240_000;

/** What test/http/openapi-client/flow.ts returns (its own type lives with the generated one). */
interface FlowResult {
  keyPrefix: string;
  brandName: string | undefined;
  sectionFields: string[];
  voice: string | undefined;
  primaryColor: string | null | undefined;
  campaignStatus: string;
  auditActions: string[];
}

/** Every way `source` tells the compiler to trust it: `as` (but `as const`), `<T>x`, `x!`, `any`, `@ts-…`. */
function castsIn(source: string): string[] {
  const file = ts.createSourceFile('flow.ts', source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const isConst = ts.isAsExpression(node) && node.type.getText(file) === 'const';
    if (
      (ts.isAsExpression(node) && !isConst) ||
      ts.isTypeAssertionExpression(node) ||
      ts.isNonNullExpression(node) ||
      node.kind === ts.SyntaxKind.AnyKeyword
    )
      found.push(node.getText(file));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...found, ...(source.match(/@ts-\w+/g) ?? [])];
}

describeEachBackend(
  'A client generated from GET /openapi.json (openapi-typescript, openapi-fetch)',
  (backend) => {
    const email = `generated-client-${String(Date.now())}@example.com`;
    const fixture = useFixture(backend, {
      extend: async (f) => {
        await addUser(f, { workspaceId: f.workspaceId, role: 'owner', email, password: PASSWORD });
        return {};
      },
    });
    let baseUrl = '';
    let folder = '';
    beforeAll(async () => {
      baseUrl = `http://127.0.0.1:${String(await listenOnLoopback(fixture().app))}`;
      folder = await mkdtemp(join(tmpdir(), 'brand-context-client-'));
    });
    afterAll(async () => {
      await rm(folder, { recursive: true, force: true });
    });

    // The document is the same on either backend: generated and type-checked once.
    it.skipIf(backend.name !== 'sqlite')(
      'type-checks a client flow (sign in, create a key, read JSON and sections, draft a campaign, list the audit log) and a webhook receiver with no cast',
      async () => {
        const types = join(folder, 'api.d.ts');
        await run(process.execPath, [OPENAPI_TYPESCRIPT, `${baseUrl}/openapi.json`, '--output', types]);
        expect(await readFile(types, 'utf8')).toContain('BrandContextSections');
        const tsconfig = join(folder, 'tsconfig.json');
        await writeFile(
          tsconfig,
          JSON.stringify({
            compilerOptions: {
              target: 'ES2023',
              lib: ['ES2023'],
              module: 'NodeNext',
              moduleResolution: 'NodeNext',
              strict: true,
              noUncheckedIndexedAccess: true,
              exactOptionalPropertyTypes: true,
              // The generated file and openapi-fetch's own types are checked too.
              skipLibCheck: false,
              noEmit: true,
              types: ['node'],
              typeRoots: [join(ROOT, 'node_modules/@types')],
              paths: { 'brand-context-api': [types] },
            },
            files: [FLOW, RECEIVER],
          }),
        );
        for (const file of [FLOW, RECEIVER]) expect(castsIn(await readFile(file, 'utf8')), file).toEqual([]);
        const checked = await run(process.execPath, [TSC, '-p', tsconfig]).then(
          () => '',
          (error: unknown) => String((error as { stdout?: unknown }).stdout ?? error),
        );
        expect(checked).toBe('');
      },
      SLOW,
    );

    it('runs that flow against the service and gets what its types say', async () => {
      const f = fixture();
      // Imported by URL, so that the project's tsc does not follow it to a module only the test above generates.
      const flow = (await import(pathToFileURL(FLOW).href)) as {
        clientFlow: (
          url: string,
          login: { email: string; password: string },
          id: string,
        ) => Promise<FlowResult>;
      };
      const result = await flow.clientFlow(baseUrl, { email, password: PASSWORD }, f.workspaceId);
      expect(result).toMatchObject({
        keyPrefix: expect.stringMatching(/^brk_/) as string,
        brandName: 'Acme Coffee',
        sectionFields: ['workspace_id', 'voice', 'colors', 'updated_at', 'version'],
        voice: expect.stringMatching(/\S/) as string,
        primaryColor: expect.stringMatching(/^#[0-9A-F]{6}$/) as string,
        campaignStatus: 'draft',
      });
      expect(result.auditActions).toEqual(expect.arrayContaining(['brand_key.created', 'campaign.created']));
    });
  },
);
