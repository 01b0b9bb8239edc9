import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseBrandDocument, serializeBrandContext } from '../../core/brand-context.js';
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
    .description('print the workspace brand as JSON (the exact body the read operation returns)')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'accepted for symmetry: the output is always JSON')
    .action(async (options: { workspace: string }) => {
      const context = await withDeps((deps) => getBrand(deps, options.workspace));
      process.stdout.write(`${serializeBrandContext(context)}\n`);
    });
}
