import type { Command } from 'commander';
import { seedDemo } from '../../services/demo/demo.js';
import { withDeps } from '../deps.js';
import { createOutput } from '../output.js';

export function seedCommand(program: Command): void {
  program
    .command('seed')
    .description('create a demo workspace with complete brand data, an owner account and one brand read key')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      const seed = await withDeps(seedDemo, { create: true });
      createOutput(options.json === true).result(seed, () =>
        [
          `Demo workspace   ${seed.workspace_id}`,
          `Owner login      ${seed.owner.email} / ${seed.owner.password}`,
          `Brand read key   ${seed.brand_read_key}  (id ${seed.brand_read_key_id})`,
          'The key and the password are shown only this once.',
        ].join('\n'),
      );
    });
}
