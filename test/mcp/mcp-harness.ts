import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { Client, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { expect } from 'vitest';
import { CLI_PATH, REPO_ROOT } from '../cli/cli-process.js';
import { listenOnLoopback, startTestApp, type TestApp } from '#test/support/app.js';
import { sqliteBackend, type TestDatabase } from '#test/support/databases.js';
import { bearer } from '#test/support/users.js';

/**
 * Runs the BUILT `brand-context mcp` (`node dist/cli/main.js mcp`, run `npm run build` first) under the
 * official MCP client, against the real service listening on a free port of this process.
 */

/** Every MCP variable, empty (= unset) unless given, so the test runner's own environment never leaks in. */
const MCP_VARIABLES = [
  'BRAND_CONTEXT_URL',
  'BRAND_CONTEXT_ACCESS_TOKEN',
  'BRAND_READ_KEY',
  'BRAND_CONTEXT_WORKSPACE_ID',
  'BRAND_CONTEXT_TIMEOUT_MS',
  'BRAND_CONTEXT_WATCH_MS',
];

export function mcpEnv(env: Record<string, string>): Record<string, string> {
  return { ...Object.fromEntries(MCP_VARIABLES.map((name) => [name, ''])), ...env };
}

export interface LiveService extends TestApp {
  database: TestDatabase;
  baseUrl: string;
}

/** The app on a fresh SQLite database, listening on 127.0.0.1 at a free port. */
export async function startLiveService(): Promise<LiveService> {
  const database = await sqliteBackend.create();
  const testApp = await startTestApp(database);
  const port = await listenOnLoopback(testApp.app);
  return {
    ...testApp,
    database,
    baseUrl: `http://127.0.0.1:${String(port)}`,
    close: async () => {
      await testApp.close();
      await database.drop();
    },
  };
}

/** A personal access token (what a user puts in an MCP client's config), made with a session token. */
export async function personalAccessToken(
  service: TestApp,
  sessionToken: string,
  expiresInDays = 30,
): Promise<{ id: string; token: string }> {
  const response = await service.app.inject({
    method: 'POST',
    url: '/api/v1/tokens',
    headers: bearer(sessionToken),
    payload: { name: 'Claude Desktop', expires_in_days: expiresInDays },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string; token: string }>();
}

/** The protocol revision with `server/discover` and `subscriptions/listen`. */
export const MODERN_REVISION = '2026-07-28';

export interface McpSession {
  client: Client;
  /** Everything the server process wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Spawns `brand-context mcp` with `env` and connects the official client to it over stdio: with the 2025
 * handshake (initialize), as the SDK's client does by default, or at the 2026-07-28 revision with `modern`.
 */
export async function connectMcp(
  env: Record<string, string>,
  { modern = false }: { modern?: boolean } = {},
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, 'mcp'],
    env: mcpEnv(env),
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as Readable | null)?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const client = new Client(
    { name: 'brand-context-test', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: MODERN_REVISION } } } : {},
  );
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export interface ToolCall {
  isError: boolean;
  /** The text blocks, joined by line breaks. */
  text: string;
  blocks: string[];
  structured: unknown;
}

/** Calls a tool and returns its error flag, its text content (also block by block) and its structured content. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolCall> {
  const result = await client.callTool({ name, arguments: args });
  const blocks = result.content.map((block) => (block.type === 'text' ? block.text : ''));
  return {
    isError: result.isError === true,
    text: blocks.join('\n'),
    blocks,
    structured: result.structuredContent,
  };
}

/** Validates tool results against the output schemas the server itself advertises in tools/list. */
export class OutputSchemas {
  private readonly validator = new AjvJsonSchemaValidator();
  private readonly schemas = new Map<string, Record<string, unknown>>();

  static async of(client: Client): Promise<OutputSchemas> {
    const outputs = new OutputSchemas();
    for (const tool of (await client.listTools()).tools) {
      if (tool.outputSchema) outputs.schemas.set(tool.name, tool.outputSchema);
    }
    return outputs;
  }

  /** Fails the test unless `call` succeeded with structured content valid against `tool`'s output schema. */
  expectValid(tool: string, call: ToolCall): void {
    expect(call.isError, call.text).toBe(false);
    const schema = this.schemas.get(tool);
    if (!schema) throw new Error(`${tool} advertises no output schema`);
    const result = this.validator.getValidator(schema)(call.structured);
    expect(result.errorMessage).toBeUndefined();
    expect(result.valid).toBe(true);
    // The text block is the same JSON, for clients that only show text.
    expect(JSON.parse(call.text)).toEqual(call.structured);
  }
}

export interface RawExchange {
  /** Every line the server wrote to stdout. */
  stdoutLines: string[];
  stderr: string;
  /** The responses, by request id. */
  responses: Map<number, Record<string, unknown>>;
  exitCode: number | null;
}

/**
 * Talks JSON-RPC to `brand-context mcp` by hand, reading its raw stdout: the SDK client skips lines that
 * are not JSON, so only this shows that stdout carries nothing but the protocol. Sends `initialize`, then
 * `requests` (ids 2, 3, …), waits for every answer, closes stdin and waits for the process to exit.
 */
export async function rawExchange(
  env: Record<string, string>,
  requests: { method: string; params: Record<string, unknown> }[],
): Promise<RawExchange> {
  const child = spawn(process.execPath, [CLI_PATH, 'mcp'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...mcpEnv(env) },
  });
  const result: RawExchange = { stdoutLines: [], stderr: '', responses: new Map(), exitCode: null };
  const expected = requests.length + 1;
  let pending = '';
  let allAnswered: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (allAnswered = resolve));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (result.stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      result.stdoutLines.push(line);
      try {
        const message = JSON.parse(line) as Record<string, unknown>;
        if (typeof message.id === 'number') result.responses.set(message.id, message);
      } catch {
        // Kept in stdoutLines: the test reports it.
      }
      if (result.responses.size === expected) allAnswered();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const send = (message: Record<string, unknown>) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  });
  send({ method: 'notifications/initialized' });
  requests.forEach((request, index) => send({ id: index + 2, ...request }));
  const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await Promise.race([answered, exited]);
  child.stdin.end();
  result.exitCode = await exited;
  clearTimeout(timeout);
  if (pending !== '') result.stdoutLines.push(pending);
  return result;
}
