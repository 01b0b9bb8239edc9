import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HangingEndpoint } from '#test/support/webhook-receiver.js';
import { callTool, connectMcp, type McpSession } from './mcp-harness.js';

/** A JWT-shaped token: the service is never reached, so nobody checks its signature. */
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfdGVzdCJ9.bm90LWEtcmVhbC1zaWduYXR1cmUtYnV0LWxvbmc';

/** A free port with nothing listening on it: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return port;
}

describe('brand-context mcp: the service is down', () => {
  let mcp: McpSession;
  let url: string;

  beforeAll(async () => {
    url = `http://127.0.0.1:${String(await closedPort())}`;
    mcp = await connectMcp({ BRAND_CONTEXT_URL: url, BRAND_CONTEXT_ACCESS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('starts anyway and lists its tools', async () => {
    expect((await mcp.client.listTools()).tools).toHaveLength(7);
  });

  it('returns a tool error naming the URL, the refused connection and how to start the service', async () => {
    for (const [tool, args] of [
      ['get_brand_context', { workspace_id: 'ws_any' }],
      ['get_brand_context', {}],
      ['search_brand_knowledge', { workspace_id: 'ws_any', query: 'roast' }],
      ['list_campaigns', { workspace_id: 'ws_any' }],
      ['create_campaign_draft', { workspace_id: 'ws_any', name: 'Offline' }],
    ] as const) {
      const call = await callTool(mcp.client, tool, args);
      expect(call.isError, tool).toBe(true);
      expect(call.text, tool).toContain(
        `service_unreachable: Cannot reach the Brand Context service at ${url}: connection refused`,
      );
      expect(call.text, tool).toMatch(/Resolution: Start it with npm start .*BRAND_CONTEXT_URL/);
    }
  });

  it('fails the resource read and the prompt with the same explanation, and keeps serving', async () => {
    await expect(mcp.client.readResource({ uri: 'brand-context://brand' })).rejects.toThrow(/Cannot reach/);
    await expect(
      mcp.client.getPrompt({ name: 'draft_on_brand_email', arguments: { topic: 'tea' } }),
    ).rejects.toThrow(/Cannot reach/);
    expect((await mcp.client.listTools()).tools).toHaveLength(7);
    expect(mcp.stderr()).not.toContain(TOKEN);
  });
});

describe('brand-context mcp: the service does not answer', () => {
  let mcp: McpSession;
  let silent: HangingEndpoint;

  beforeAll(async () => {
    // Accepts connections and never answers, like a hung service.
    silent = await HangingEndpoint.start();
    mcp = await connectMcp({
      BRAND_CONTEXT_URL: `http://127.0.0.1:${String(silent.port)}`,
      BRAND_CONTEXT_ACCESS_TOKEN: TOKEN,
      BRAND_CONTEXT_WORKSPACE_ID: 'ws_any',
      BRAND_CONTEXT_TIMEOUT_MS: '300',
    });
  });
  afterAll(async () => {
    await mcp.close();
    await silent.close();
  });

  it('returns a timeout tool error after BRAND_CONTEXT_TIMEOUT_MS instead of hanging', async () => {
    const started = performance.now();
    const call = await callTool(mcp.client, 'get_campaign', { campaign_id: 'cmp_any' });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(call.isError).toBe(true);
    expect(call.text).toMatch(
      /service_timeout: The Brand Context service at http:\/\/127\.0\.0\.1:\d+ did not answer within 0\.3 s/,
    );
    expect(call.text).toMatch(/Resolution: .*BRAND_CONTEXT_TIMEOUT_MS/);
    expect((await mcp.client.listTools()).tools).toHaveLength(7);
  });
});

describe('brand-context mcp: BRAND_CONTEXT_URL points at another server', () => {
  let mcp: McpSession;
  let impostor: ReturnType<typeof createHttpServer>;

  beforeAll(async () => {
    // Answers like a misconfigured proxy or an echo server would, repeating the Authorization header.
    impostor = createHttpServer((request, response) => {
      const auth = request.headers.authorization ?? '';
      if (request.url?.endsWith('/cmp_echo')) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(`Bad request. You sent: ${auth}`);
      } else if (request.url?.endsWith('/cmp_problem')) {
        response
          .writeHead(403, { 'content-type': 'application/problem+json' })
          .end(JSON.stringify({ code: 'denied', detail: `Not with ${auth}`, resolution: 'Go away.' }));
      } else if (request.url?.endsWith('/cmp_shape')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world"}');
      } else {
        response.writeHead(502, { 'content-type': 'text/html' }).end('<html><h1>502 Bad Gateway</h1></html>');
      }
    });
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    const { port } = impostor.address() as AddressInfo;
    mcp = await connectMcp({
      BRAND_CONTEXT_URL: `http://127.0.0.1:${String(port)}`,
      BRAND_CONTEXT_ACCESS_TOKEN: TOKEN,
      BRAND_CONTEXT_WORKSPACE_ID: 'ws_any',
    });
  });
  afterAll(async () => {
    await mcp.close();
    impostor.closeAllConnections();
    await new Promise<void>((resolve) =>
      impostor.close(() => {
        resolve();
      }),
    );
  });

  it('reports an answer that is not a problem description with its status and the start of its body', async () => {
    const call = await callTool(mcp.client, 'get_brand_context');
    expect(call.isError).toBe(true);
    expect(call.text).toContain('unexpected_response (HTTP 502)');
    expect(call.text).toContain('<h1>502 Bad Gateway</h1>');
    expect(call.text).toMatch(/Resolution: Check that BRAND_CONTEXT_URL points at the Brand Context service/);
  });

  it('reports a 200 answer of the wrong shape instead of passing it on', async () => {
    const call = await callTool(mcp.client, 'get_campaign', { campaign_id: 'cmp_shape' });
    expect(call.isError).toBe(true);
    expect(call.text).toMatch(/unexpected_response \(HTTP 200\): .*unexpected shape \(id: /);
  });

  it('never passes on the token when the server echoes it, in plain text or in a problem', async () => {
    for (const campaignId of ['cmp_echo', 'cmp_problem']) {
      const call = await callTool(mcp.client, 'get_campaign', { campaign_id: campaignId });
      expect(call.isError, campaignId).toBe(true);
      expect(call.text, campaignId).toContain('Bearer [redacted]');
      expect(call.text, campaignId).not.toContain(TOKEN);
    }
    expect(mcp.stderr()).not.toContain(TOKEN);
  });
});
