import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** Runs a program (no shell); a failure rejects with its stderr. */
export const run = promisify(execFile);

/** Why a command failed, as one line of a skip reason: the first line of its stderr, or the error's message. */
export function commandFailure(error: unknown): string {
  const { stderr, message } = error as { stderr?: unknown; message?: unknown };
  return ((typeof stderr === 'string' && stderr.trim()) || String(message)).split('\n')[0] ?? '';
}
