import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';

const run = promisify(execFile);

describeEachBackend('Several processes starting on a new database', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await backend.create();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('all succeed, and the schema is migrated exactly once', async () => {
    const env = { ...process.env, DATABASE_URL: database.url };
    const starts = await Promise.allSettled(
      [1, 2, 3, 4].map((i) =>
        run('node', ['dist/cli/main.js', 'workspace', 'create', '--name', `Node ${i}`, '--json'], { env }),
      ),
    );
    expect(starts.map((start) => start.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    const { stdout } = await run('node', ['dist/cli/main.js', 'workspace', 'list', '--json'], { env });
    expect((JSON.parse(stdout) as { name: string }[]).map((w) => w.name).sort()).toEqual([
      'Node 1',
      'Node 2',
      'Node 3',
      'Node 4',
    ]);
  });
});
