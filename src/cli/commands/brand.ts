import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { type BrandViewOptions, brandViewSchema } from '../../contract/brand-views.js';
import { parseBrandDocument } from '../../core/brand-context.js';
import { brandView, renderBrandView } from '../../core/brand-views.js';
import { describeError } from '../../store/errors.js';
import { getBrand, replaceBrand } from '../../services/brand/brand.js';
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

export function brandCommand(program: Command): void {
  const brand = program.command('brand').description('import and export a workspace brand');

  brand
    .command('import')
    .description('replace the workspace brand with FILE (JSON in the brand context shape; - for stdin)')
    .requiredOption('--workspace <id>', 'workspace id')
    .argument('<file>', 'JSON file, or - for standard input')
    .option('--json', 'machine-readable output')
    .action(async (file: string, options: { workspace: string; json?: boolean }) => {
      const document = await readJson(file);
      const saved = await withDeps((deps) =>
        replaceBrand(deps, OPERATOR, options.workspace, parseBrandDocument(document)),
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
      const context = await withDeps((deps) => getBrand(deps, options.workspace));
      const { text } = renderBrandView(context, view);
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
}
