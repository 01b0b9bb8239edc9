import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrandContext } from '../../src/core/brand-context.js';
import type { DemoSeed } from '../../src/services/demo/demo.js';
import { openStore } from '../../src/store/open-store.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { runCli, useCliWorkspace } from './cli-process.js';

/** A brand context without the fields the server sets on every write. */
function content({ workspace_id: _id, updated_at: _at, version: _version, ...rest }: BrandContext) {
  return rest;
}

describeEachBackend('brand-context brand export and import', (backend) => {
  // The suite's new workspace (its brand still the empty first one) is where an export is imported.
  const workspace = useCliWorkspace(backend, 'Copy');
  const { cliJson } = workspace;
  let directory: string;
  let source: string;
  let exported: BrandContext;
  const cli = (args: string[], input?: string) =>
    runCli(args, { databaseUrl: workspace.database.url, input });
  const exportBrand = (workspaceId: string) =>
    cliJson<BrandContext>(['brand', 'export', '--workspace', workspaceId]);

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'brand-context-brand-files-'));
    ({ workspace_id: source } = await cliJson<DemoSeed>(['seed', '--json']));
    exported = await exportBrand(source);
  });

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  const file = async (name: string, text: string) => {
    const path = join(directory, name);
    await writeFile(path, text);
    return path;
  };

  it('exports the whole brand as the read operation returns it', () => {
    expect(exported.workspace_id).toBe(source);
    expect(exported.name).toBe('Acme Coffee');
    expect(exported.knowledge).toHaveLength(20);
    expect(exported.assets.length).toBeGreaterThan(0);
    expect(exported.skills.length).toBeGreaterThan(0);
    expect(Object.keys(exported.preferences).length).toBeGreaterThan(0);
    expect(exported.fonts.heading?.family).toBe('Fraunces');
    expect(exported.colors.palette.length).toBeGreaterThan(0);
  });

  it('exports only the asked sections as Markdown, and the colors and fonts as design tokens', async () => {
    const markdown = await cli([
      'brand',
      'export',
      '--workspace',
      source,
      '--format',
      'markdown',
      '--sections',
      'colors,voice',
    ]);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toMatch(/^# Acme Coffee\n/);
    expect(markdown.stdout.match(/^## .+$/gm)).toEqual(['## Voice', '## Colors']);

    const tokens = await cli(['brand', 'export', '--workspace', source, '--format', 'dtcg']);
    expect(tokens.code).toBe(0);
    const parsed = JSON.parse(tokens.stdout) as { color: { primary: { $value: string } }; font: object };
    expect(parsed.color.primary.$value).toBe(exported.colors.primary);
    expect(Object.keys(parsed.font)).toEqual(['heading', 'body']);
  });

  it('exports the knowledge of the asked kinds and tags', async () => {
    const result = await cli([
      'brand',
      'export',
      '--workspace',
      source,
      '--format',
      'markdown',
      '--sections',
      'knowledge',
      '--knowledge-kinds',
      'guideline',
      '--knowledge-tags',
      'STYLE,nothing',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^#+ .+$/gm)).toEqual(['# Acme Coffee', '## Knowledge', '### Guidelines']);
    expect(result.stdout).toContain('- **Emoji**:');
    expect(result.stdout).not.toContain('Talk like a barista');
  });

  it.each([
    [['--format', 'md'], 'error: --format "md" must be one of json, markdown, dtcg\n'],
    [['--sections', 'voice,colours'], 'error: --sections "colours" must be one of name, description, voice'],
    [
      ['--knowledge-kinds', 'rumor'],
      'error: --knowledge-kinds "rumor" must be one of fact, guideline, reference',
    ],
    [
      ['--sections', 'voice', '--knowledge-tags', 'style'],
      'error: --knowledge-tags needs "knowledge" in sections: it filters that section\n',
    ],
    [
      ['--format', 'dtcg', '--sections', 'colors,voice'],
      'error: --sections can name only colors and fonts with format dtcg, not voice\n',
    ],
  ])('refuses %j as a usage error: exit 2, naming the option', async (options, message) => {
    const result = await cli(['brand', 'export', '--workspace', source, ...options]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/request|hint/i);
  });

  it('imports an export into a new workspace losslessly: only workspace_id, updated_at and version differ', async () => {
    const target = workspace.id;
    const path = await file('export.json', JSON.stringify(exported));

    const result = await cli(['brand', 'import', '--workspace', target, path]);
    expect(result.code).toBe(0);
    // A new workspace starts at version 1 with an empty brand; the import is version 2.
    expect(result.stdout).toBe(`Imported the brand of ${target}: now version 2.\n`);

    const copy = await exportBrand(target);
    expect(copy.workspace_id).toBe(target);
    expect(copy.version).toBe(2);
    // Ids, knowledge timestamps, colors, fonts, assets, skills and preferences: all kept as they were.
    expect(content(copy)).toEqual(content(exported));
    expect(copy.knowledge.map((entry) => [entry.id, entry.updated_at])).toEqual(
      exported.knowledge.map((entry) => [entry.id, entry.updated_at]),
    );
  });

  it('refuses an invalid document with exit 1, naming every bad field, and leaves the stored brand unchanged', async () => {
    const invalid = {
      ...exported,
      colors: { ...exported.colors, primary: 'red' },
      mascot: 'owl',
    };
    const [path, tables] = await Promise.all([
      file('invalid.json', JSON.stringify(invalid)),
      snapshotTables(workspace.database.config),
    ]);

    const result = await cli(['brand', 'import', '--workspace', source, path]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: The brand document is invalid: /);
    expect(result.stderr).toContain('\n  colors.primary: must be a #RRGGBB color');
    expect(result.stderr).toContain('\n  mascot: is not a known field');
    expect(result.stderr).toMatch(/\n {2}hint: .+\n$/);

    // The export taken before (in beforeAll) and after are identical, and so is every row of every table.
    expect(await exportBrand(source)).toEqual(exported);
    expect(await snapshotTables(workspace.database.config)).toEqual(tables);
  });

  it('reports an invalid document as JSON on stderr with --json', async () => {
    const path = await file('bad-font.json', JSON.stringify({ name: 'X', fonts: { body: { family: '' } } }));
    const result = await cli(['brand', 'import', '--workspace', source, path, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        code: 'invalid_request',
        detail: expect.stringContaining('fonts.body.family') as string,
        resolution: expect.any(String) as string,
        errors: [{ field: 'fonts.body.family', message: expect.any(String) as string }],
      },
    });
  });

  it('treats a file that is not JSON as a usage error: exit 2, nothing changed', async () => {
    const path = await file('not-json.txt', 'name: Acme\n');
    const tables = await snapshotTables(workspace.database.config);
    const result = await cli(['brand', 'import', '--workspace', source, path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: .*not-json\.txt is not valid JSON/);
    expect(await snapshotTables(workspace.database.config)).toEqual(tables);
  });

  it('treats a file that does not exist as a usage error: exit 2', async () => {
    const result = await cli(['brand', 'import', '--workspace', source, join(directory, 'missing.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: cannot read .*missing\.json/);
  });

  it('imports from standard input with -', async () => {
    const before = await exportBrand(source);
    const edited = { ...before, description: 'Now roasting in Seattle too.' };
    const result = await cli(
      ['brand', 'import', '--workspace', source, '-', '--json'],
      JSON.stringify(edited),
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ workspace_id: source, version: before.version + 1 });

    const after = await exportBrand(source);
    expect(after.description).toBe('Now roasting in Seattle too.');
    expect(after.version).toBe(before.version + 1);
    expect(content(after)).toEqual({ ...content(before), description: 'Now roasting in Seattle too.' });
  });

  it('imports with --note, which the history records, and exports any earlier version with --version', async () => {
    const before = await exportBrand(source);
    const edited = { ...before, voice: 'Versioned from the command line.' };
    const path = await file('noted.json', JSON.stringify(edited));

    const result = await cli([
      'brand',
      'import',
      '--workspace',
      source,
      path,
      '--note',
      'Voice from the CLI',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ version: before.version + 1 });

    const store = await openStore(workspace.database.config);
    try {
      const [latest] = await store.brand.listVersions(source, { limit: 1 });
      expect(latest).toMatchObject({
        version: before.version + 1,
        note: 'Voice from the CLI',
        actorType: 'operator',
        sectionsChanged: ['voice'],
      });
    } finally {
      await store.close();
    }

    const earlier = await cliJson<BrandContext>([
      'brand',
      'export',
      '--workspace',
      source,
      '--version',
      String(before.version),
    ]);
    expect(earlier).toEqual(before);
    const markdown = await cli([
      'brand',
      'export',
      '--workspace',
      source,
      '--version',
      String(before.version),
      '--format',
      'markdown',
      '--sections',
      'voice',
    ]);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain(before.voice);
    expect(markdown.stdout).not.toContain('Versioned from the command line.');
  });

  it('refuses a --version that is not a version of the brand, and a --note of several lines', async () => {
    const missing = await cli(['brand', 'export', '--workspace', source, '--version', '999999']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(new RegExp(`^error: The brand of ${source} has no version 999999\\.\n`));

    const unknown = await cli(['brand', 'export', '--workspace', 'ws_nope', '--version', '1']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: Workspace ws_nope does not exist\.\n/);

    for (const value of ['0', 'latest', '1.5']) {
      const usage = await cli(['brand', 'export', '--workspace', source, '--version', value]);
      expect(usage.code, value).toBe(2);
      expect(usage.stderr, value).toContain(`error: --version "${value}" must be a positive whole number`);
    }

    const path = await file('note-lines.json', JSON.stringify(exported));
    const tables = await snapshotTables(workspace.database.config);
    const lines = await cli(['brand', 'import', '--workspace', source, path, '--note', 'one\ntwo']);
    expect(lines.code).toBe(2);
    expect(lines.stderr).toMatch(/^error: --note "one\\ntwo" /);
    expect(await snapshotTables(workspace.database.config)).toEqual(tables);
  });

  it('exits 1 saying the workspace does not exist when exporting an unknown workspace', async () => {
    const result = await cli(['brand', 'export', '--workspace', 'ws_nope']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: Workspace ws_nope does not exist\.\n/);
  });
});
