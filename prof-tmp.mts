import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { KeySigner } from './src/core/key-signature.js';
import { BRAND_KEY, hashKey } from './src/core/secret-keys.js';
import { CLI, childEnv, freePort, seed, spawnNode, waitReady } from './bench/harness.js';

const dir = await mkdtemp(join(tmpdir(), 'prof-'));
const url = `sqlite:${join(dir, 'db.sqlite')}`;
const demo = await seed(url);
const db = new Database(join(dir, 'db.sqlite'));
const secret = (db.prepare("select value from settings where name='key_signing_secret'").get() as { value: string }).value;
const signer = new KeySigner(BRAND_KEY, 'bk', Buffer.from(secret, 'base64'));
const exp = Date.now() + 80 * 86400000;
const insert = db.prepare('insert into brand_keys (id, workspace_id, name, key_hash, prefix, last4, created_at, expires_at) values (?,?,?,?,?,?,?,?)');
const keys: string[] = [];
db.transaction(() => {
  for (let i = 0; i < 60000; i++) {
    const { key, id } = signer.issue(demo.workspace_id, exp);
    keys.push(key);
    const h = BRAND_KEY.hint(key);
    insert.run(id, demo.workspace_id, 'k', hashKey(key), h.prefix, h.last4, new Date().toISOString(), new Date(exp).toISOString());
  }
})();
db.close();
const cpuOf = async (pid: number) => {
  const f = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // ms
};
const mode = process.argv[2] ?? 'both';
for (const [label, count] of [['hit', 1000], ['miss', 50000]] as const) {
  const port = await freePort();
  const profDir = join('/tmp/prof', label);
  const child = spawnNode(label, ['--cpu-prof', '--cpu-prof-dir', profDir, CLI, 'serve'], childEnv({ DATABASE_URL: url, PORT: String(port), LOG_LEVEL: 'info' }), 'ignore');
  const base = `http://127.0.0.1:${port}`;
  await waitReady(base, child, { stdout: '/dev/null', stderr: '/dev/null' });
  let n = 0;
  const run = (duration: number) => new Promise<number>((resolve) => {
    autocannon({ url: `${base}/functions/v1/brand-agent`, method: 'POST', connections: 10, duration,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'context', workspace_id: demo.workspace_id }),
      requests: [{ setupRequest: (r: any) => ({ ...r, headers: { ...r.headers, authorization: `Bearer ${keys[n++ % count]}` } }) }],
    }, (_e: unknown, result: any) => resolve(result.requests.total));
  });
  await run(2);
  const before = await cpuOf(child.pid);
  const total = await run(5);
  const cpu = (await cpuOf(child.pid)) - before;
  console.log(label, 'req/s', (total / 5).toFixed(0), 'CPU µs/req', ((cpu * 1000) / total).toFixed(1));
  await child.stop();
}
process.exit(0);
