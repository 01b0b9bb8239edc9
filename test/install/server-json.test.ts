import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { MCP_PATH } from '../../src/core/oauth.js';
import { DEFAULT_SERVICE_URL } from '../../src/mcp/config.js';

interface ServerJson {
  $schema: string;
  name: string;
  description: string;
  version: string;
  remotes: { type: string; url: string; variables?: Record<string, { isRequired?: boolean }> }[];
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    packageArguments: { type: string; value: string }[];
    environmentVariables: { name: string; default?: string }[];
  }[];
}

interface PackageJson {
  name: string;
  version: string;
  mcpName: string;
  bin: Record<string, string>;
}

function readText(path: string): string {
  return readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
}

/*
 * server.json describes this service to the MCP registry (docs/connect-ai-client.md "Connect an AI client"): the
 * remote `/mcp` and the npm package's stdio server. The registry checks the package's `mcpName` against the
 * name, and clients install the version it names: both must follow package.json, release after release.
 */
const server = JSON.parse(readText('server.json')) as ServerJson;
const pkg = JSON.parse(readText('package.json')) as PackageJson;
const mcpDoc = readText('docs/mcp.md');

it('names the server as package.json’s mcpName, at package.json’s version, in the 2025-12-11 schema', () => {
  expect(server.$schema).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
  expect(server.name).toBe(pkg.mcpName);
  expect(server.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
  expect(server.version).toBe(pkg.version);
  expect(server.description.length).toBeLessThanOrEqual(100);
});

it('offers the remote server at /mcp of the host a user names', () => {
  expect(server.remotes).toEqual([
    expect.objectContaining({ type: 'streamable-http', url: `https://{host}${MCP_PATH}` }),
  ]);
  expect(server.remotes[0]?.variables?.host?.isRequired).toBe(true);
});

it('offers the npm package of package.json, at its version, running `brand-context mcp` over stdio', () => {
  expect(server.packages).toHaveLength(1);
  const [npm] = server.packages;
  expect(npm?.registryType).toBe('npm');
  expect(npm?.identifier).toBe(pkg.name);
  expect(npm?.version).toBe(pkg.version);
  expect(Object.keys(pkg.bin)).toEqual([pkg.name]);
  expect(npm?.transport).toEqual({ type: 'stdio' });
  expect(npm?.packageArguments).toEqual([{ type: 'positional', value: 'mcp' }]);
});

it('names only the variables the stdio server reads, each documented, with its default URL', () => {
  const names = server.packages[0]?.environmentVariables.map((variable) => variable.name) ?? [];
  expect(names.length).toBeGreaterThan(0);
  for (const name of names) expect(mcpDoc, `docs/mcp.md documents ${name}`).toContain(`| \`${name}\` |`);
  const url = server.packages[0]?.environmentVariables.find(({ name }) => name === 'BRAND_CONTEXT_URL');
  expect(url?.default).toBe(DEFAULT_SERVICE_URL);
});
