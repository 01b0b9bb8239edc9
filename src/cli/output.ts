import { AppError } from '../core/errors.js';
import { StoreError } from '../store/errors.js';

/** A mistake in how the command was called (bad file, bad argument); exits 2 like other usage errors. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface Output {
  json: boolean;
  /** Writes `data` as one JSON line with --json, or `human` otherwise. */
  result(data: unknown, human: () => string): void;
}

export function createOutput(
  json: boolean,
  write: (text: string) => void = (text) => process.stdout.write(text),
): Output {
  return {
    json,
    result(data, human) {
      write(`${json ? JSON.stringify(data) : human()}\n`);
    },
  };
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One line (two with a hint) on stderr; with --json, the same as a JSON object. */
export function formatError(error: unknown, json: boolean): string {
  if (error instanceof AppError) {
    if (json)
      return JSON.stringify({
        error: { code: error.code, detail: error.detail, resolution: error.resolution, errors: error.fields },
      });
    const fields = error.fields.map((issue) => `\n  ${issue.field || 'document'}: ${issue.message}`).join('');
    return `error: ${error.detail}${fields}\n  hint: ${error.resolution}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  // A database failure is the operator's to fix: its line keeps the driver's words; --json names its code.
  const code = error instanceof StoreError ? error.code : 'error';
  return json ? JSON.stringify({ error: { code, detail: message } }) : `error: ${message}`;
}

/** Left-aligned columns for human-readable listings. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** The command that gives `email`'s account a password (docs/postgresql.md "PostgreSQL"), indented as a step to run. */
export function setPasswordCommand(email: string): string {
  return `  printf %s "$PASSWORD" | npx brand-context users set-password --email ${email}`;
}
