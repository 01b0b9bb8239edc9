/**
 * The benchmark's yardstick: a bare `node:http` server that answers every request with the exact bytes and
 * headers the brand-agent operation returned. No routing, no body parsing, no logging.
 *
 * Usage: node baseline-server.mjs <body file> <headers as a JSON object of strings>
 * Prints `{"port":N}` on stdout once listening on 127.0.0.1 (an ephemeral port); SIGTERM stops it.
 *
 * `bench/brand-agent.ts` transpiles this file to plain JavaScript and runs it with plain `node`, so that no
 * TypeScript loader sits in the baseline's process (it would add ~30 MB RSS and an esbuild child).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [bodyPath, headersJson] = process.argv.slice(2);
if (bodyPath === undefined || headersJson === undefined) {
  process.stderr.write('usage: baseline-server <body file> <headers JSON>\n');
  process.exit(2);
}

const body = readFileSync(bodyPath);
const parsed: unknown = JSON.parse(headersJson);
if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
  process.stderr.write('baseline-server: headers must be a JSON object\n');
  process.exit(2);
}
const headers: Record<string, string> = {};
for (const [name, value] of Object.entries(parsed)) {
  if (typeof value !== 'string') {
    process.stderr.write(`baseline-server: header ${name} must be a string\n`);
    process.exit(2);
  }
  headers[name] = value;
}
headers['content-length'] = String(body.length);

const server = createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
