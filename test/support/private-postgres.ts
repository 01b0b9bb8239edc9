import { existsSync } from 'node:fs';
import { chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandFailure, run } from './commands.js';

const POSTGRES_LIBS = '/usr/lib/postgresql';

/**
 * A PostgreSQL server of the test's own, which it may stop, start, freeze and thaw: faults are never
 * injected into the shared server of TEST_DATABASE_URL.
 */
export interface PrivatePostgres {
  /** Its `postgres` database, as DATABASE_URL would name it. */
  url: string;
  /** `pg_ctl stop -m immediate`: every connection is cut at once, as in a crash. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: connections stay open and nothing answers. */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /** Stops the server (thawing it first) and deletes its files. */
  destroy(): Promise<void>;
}

/** The newest installed server's bin directory (Debian keeps one per major version). */
async function findBinaries(): Promise<string | undefined> {
  const versions = await readdir(POSTGRES_LIBS).catch(() => []);
  return versions
    .filter((version) => existsSync(join(POSTGRES_LIBS, version, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(POSTGRES_LIBS, version, 'bin'))[0];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/** The server refuses to run as root: as root, its commands run as the `postgres` account. */
async function serverAccount(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
}

/** The pids of `pid`'s children. */
async function childrenOf(pid: number): Promise<number[]> {
  const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(pid)]).catch(() => ({ stdout: '' }));
  return stdout
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((child) => child > 0);
}

/**
 * initdb into a temporary directory and start the server on a free port of 127.0.0.1, with trust
 * authentication. Returns why it cannot when it cannot (no binaries, no `postgres` account…).
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres | { skipReason: string }> {
  const bin = await findBinaries();
  if (bin === undefined) return { skipReason: `no PostgreSQL server in ${POSTGRES_LIBS}/*/bin` };
  let account: { uid: number; gid: number } | undefined;
  try {
    account = await serverAccount();
  } catch (error) {
    return { skipReason: `running as root, but no postgres account: ${commandFailure(error)}` };
  }
  const dir = await mkdtemp(join(tmpdir(), 'brand-context-private-postgres-'));
  if (account) await chown(dir, account.uid, account.gid);
  const data = join(dir, 'data');
  const asServer = (command: string, args: string[]) =>
    account
      ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args])
      : run(join(bin, command), args);
  const port = await freePort();
  const pgCtl = (...args: string[]) => asServer('pg_ctl', ['-D', data, '-w', '-t', '60', ...args]);
  const start = async () => {
    const options = `-p ${String(port)} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off`;
    await pgCtl('-l', join(dir, 'server.log'), '-o', options, 'start');
  };
  const postmaster = async () =>
    Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const signal = async (name: 'SIGSTOP' | 'SIGCONT') => {
    const pid = await postmaster();
    // Postmaster first when freezing, so that it starts no new backend meanwhile; last when thawing.
    if (name === 'SIGSTOP') process.kill(pid, name);
    for (const child of await childrenOf(pid)) process.kill(child, name);
    if (name === 'SIGCONT') process.kill(pid, name);
  };
  try {
    await asServer('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    return { skipReason: `cannot start a private PostgreSQL server: ${commandFailure(error)}` };
  }
  return {
    url: `postgres://postgres@127.0.0.1:${String(port)}/postgres`,
    stop: async () => {
      await pgCtl('-m', 'immediate', 'stop');
    },
    start,
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    async destroy() {
      if (existsSync(join(data, 'postmaster.pid'))) {
        await signal('SIGCONT');
        await pgCtl('-m', 'immediate', 'stop');
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Why no private server can run here, or undefined: found by starting one and removing it again. Suites
 * decide to skip with this when they are collected, and start their own server in beforeAll, so that a run
 * that filters their tests out leaves no server behind.
 */
export async function privatePostgresSkipReason(): Promise<string | undefined> {
  const server = await startPrivatePostgres();
  if ('skipReason' in server) return server.skipReason;
  await server.destroy();
  return undefined;
}
