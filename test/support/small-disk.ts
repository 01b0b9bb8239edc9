import { mkdtemp, open, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandFailure, run } from './commands.js';

/**
 * A real, tiny filesystem (a size-limited tmpfs) that tests can fill up, so that the database on it gets
 * ENOSPC from the kernel exactly as on a full disk. `ulimit -f` is no substitute: SQLite reports the EFBIG
 * it causes as SQLITE_IOERR_WRITE, not SQLITE_FULL.
 */
export interface SmallDisk {
  dir: string;
  /** Fills the disk until only `leaveBytes` are free. */
  fill(leaveBytes: number): Promise<void>;
  /** Frees what `fill` took. */
  free(): Promise<void>;
  unmount(): Promise<void>;
}

/** Mounts a tmpfs of `sizeBytes`; the reason it cannot (not root, no CAP_SYS_ADMIN) otherwise. */
export async function mountSmallDisk(sizeBytes: number): Promise<SmallDisk | { skipReason: string }> {
  if (process.getuid?.() !== 0) return { skipReason: 'mounting a small tmpfs needs root' };
  const dir = await mkdtemp(join(tmpdir(), 'brand-context-small-disk-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${String(sizeBytes)}`, 'tmpfs', dir]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    return { skipReason: `cannot mount a small tmpfs: ${commandFailure(error)}` };
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    async fill(leaveBytes) {
      const { bavail, bsize } = await statfs(dir);
      const file = await open(filler, 'a');
      try {
        await file.write(Buffer.alloc(Math.max(0, bavail * bsize - leaveBytes), 1));
      } finally {
        await file.close();
      }
    },
    free: () => rm(filler, { force: true }),
    async unmount() {
      // Lazily: a database file a failed test left open must not keep the mount (and the test run) alive.
      await run('umount', ['--lazy', dir]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Why no small disk can be mounted here, or undefined: found by mounting one and unmounting it again. */
export async function smallDiskSkipReason(): Promise<string | undefined> {
  const disk = await mountSmallDisk(1024 * 1024);
  if ('skipReason' in disk) return disk.skipReason;
  await disk.unmount();
  return undefined;
}
