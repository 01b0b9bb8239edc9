import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { z } from 'zod';
import { type BrandViewOptions, brandViewSchema } from '../../contract/brand-views.js';
import { brandChangeNoteSchema, brandVersionNumberSchema } from '../../contract/brand-versions.js';
import { parseBrandDocument } from '../../core/brand-context.js';
import { brandView, renderBrandView } from '../../core/brand-views.js';
import { describeError } from '../../store/errors.js';
import { getBrand, replaceBrand } from '../../services/brand/brand.js';
import { getBrandVersion } from '../../services/brand/versions.js';
import { withDeps } from '../deps.js';
import { createOutput, readStdin, UsageError } from '../output.js';
import { OPERATOR } from '../../services/audit/audit.js';

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${describeError(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON: ${describeError(error)}`);
  }
}

/** `--knowledge-tags` for the read operation's `knowledge_tags`, and so on. */
const VIEW_OPTIONS: Record<keyof BrandViewOptions, string> = {
  format: '--format',
  sections: '--sections',
  knowledge_kinds: '--knowledge-kinds',
  knowledge_tags: '--knowledge-tags',
};

interface ExportOptions {
  workspace: string;
  version?: string;
  format?: string;
  sections?: string;
  knowledgeKinds?: string;
  knowledgeTags?: string;
}

function list(value: string | undefined): string[] | undefined {
  return value?.split(',').map((item) => item.trim());
}

/**
 * The export options checked by the read operation's own schema (docs/reading-brand-context.md "Formats and sections"), so both
 * refuse the same views; a refusal is a usage error naming the option and the value it cannot take.
 */
function exportView(options: ExportOptions) {
  const input = {
    format: options.format,
    sections: list(options.sections),
    knowledge_kinds: list(options.knowledgeKinds),
    knowledge_tags: list(options.knowledgeTags),
  };
  const parsed = brandViewSchema.safeParse(input);
  if (parsed.success) return brandView(parsed.data);
  const problems = parsed.error.issues.map(({ path: [field, index], message }) => {
    const name = field as keyof BrandViewOptions;
    const value =
      typeof index === 'number' ? input[name]?.[index] : name === 'format' ? input.format : undefined;
    return `${VIEW_OPTIONS[name]}${value === undefined ? '' : ` ${JSON.stringify(value)}`} ${message}`;
  });
  throw new UsageError(problems.join('; '));
}

/** An option's value as `schema` takes it, or a usage error naming the option and what is wrong with it. */
function optionValue<T>(option: string, value: string, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UsageError(
    `${option} ${JSON.stringify(value)} ${parsed.error.issues.map((issue) => issue.message).join('; ')}`,
  );
}

export function brandCommand(program: Command): void {
  const brand = program.command('brand').description('import and export a workspace brand');

  brand
    .command('import')
    .description('replace the workspace brand with FILE (JSON in the brand context shape; - for stdin)')
    .requiredOption('--workspace <id>', 'workspace id')
    .argument('<file>', 'JSON file, or - for standard input')
    .option('--note <text>', 'why the brand changed, in one line: shown in its history')
    .option('--json', 'machine-readable output')
    .action(async (file: string, options: { workspace: string; note?: string; json?: boolean }) => {
      const note =
        options.note === undefined ? null : optionValue('--note', options.note, brandChangeNoteSchema);
      const document = await readJson(file);
      const saved = await withDeps((deps) =>
        replaceBrand(deps, OPERATOR, options.workspace, parseBrandDocument(document), { note }),
      );
      createOutput(options.json === true).result(
        { workspace_id: saved.workspace_id, version: saved.version, updated_at: saved.updated_at },
        () => `Imported the brand of ${saved.workspace_id}: now version ${saved.version}.`,
      );
    });

  brand
    .command('export')
    .description(
      'print the workspace brand as the read operation returns it: JSON by default, or Markdown or design tokens',
    )
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--version <n>', 'the brand as it was at version n (see its history); the latest by default')
    .option('--format <format>', 'json (the default), markdown (for a system prompt) or dtcg (design tokens)')
    .option('--sections <list>', 'only these sections, comma-separated (e.g. voice,colors)')
    .option(
      '--knowledge-kinds <list>',
      'only knowledge entries of these kinds, comma-separated (e.g. guideline)',
    )
    .option('--knowledge-tags <list>', 'only knowledge entries carrying one of these tags, comma-separated')
    .option('--json', 'accepted for symmetry: the default output is JSON')
    .action(async (options: ExportOptions) => {
      const view = exportView(options);
      const version =
        options.version === undefined
          ? undefined
          : optionValue('--version', options.version, brandVersionNumberSchema);
      const context = await withDeps((deps) =>
        version === undefined
          ? getBrand(deps, options.workspace)
          : getBrandVersion(deps, options.workspace, version),
      );
      const { text } = renderBrandView(context, view);
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
}
