import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { brandViewSchema } from '../../contract/brand-views.js';
import { parseBrandDocument } from '../../core/brand-context.js';
import { brandView, renderBrandView } from '../../core/brand-views.js';
import { parseInput } from '../../core/inputs.js';
import { describeError } from '../../store/errors.js';
import { getBrand, replaceBrand } from '../../services/brand.js';
import { withDeps } from '../deps.js';
import { createOutput, readStdin, UsageError } from '../output.js';
import { OPERATOR } from '../../services/audit.js';

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
    .option('--json', 'accepted for symmetry: the default output is JSON')
    .action(async (options: { workspace: string; format?: string; sections?: string }) => {
      // The read operation's own options schema (README "Formats and sections"), so both refuse alike.
      const view = brandView(
        parseInput(
          brandViewSchema,
          {
            ...(options.format !== undefined && { format: options.format }),
            ...(options.sections !== undefined && {
              sections: options.sections.split(',').map((section) => section.trim()),
            }),
          },
          '',
          'Invalid export options',
        ),
      );
      const context = await withDeps((deps) => getBrand(deps, options.workspace));
      const { text } = renderBrandView(context, view);
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
}
