import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookSender } from './webhook-sender.js';

const open: Server[] = [];

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hooks`;
}

afterEach(async () => {
  for (const server of open.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const request = (url: string) => ({ url, body: '{"id":"evt_1"}', headers: { 'webhook-id': 'evt_1' } });
const permissive = new WebhookSender({ allowPrivate: true });
const strict = new WebhookSender({ allowPrivate: false });

describe('WebhookSender', () => {
  it('POSTs the body as JSON with the given headers, and a 2xx is success', async () => {
    let seen: { method?: string; type?: string; id?: string; body: string } = { body: '' };
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen = {
          method: req.method,
          type: req.headers['content-type'],
          id: String(req.headers['webhook-id']),
          body,
        };
        res.writeHead(204).end();
      });
    });
    const result = await permissive.send(request(url));
    expect(result).toMatchObject({ ok: true, status: 204, error: null });
    expect(seen).toEqual({ method: 'POST', type: 'application/json', id: 'evt_1', body: '{"id":"evt_1"}' });
  });

  it('does not follow a redirect, and says so', async () => {
    let followed = false;
    const target = await serve((_req, res) => {
      followed = true;
      res.end();
    });
    const url = await serve((_req, res) => res.writeHead(302, { location: target }).end());
    const result = await permissive.send(request(url));
    expect(result).toMatchObject({ ok: false, status: 302, error: 'HTTP 302 (redirects are not followed)' });
    expect(followed).toBe(false);
  });

  it('keeps the start of a failed answer’s body as the error', async () => {
    const url = await serve((_req, res) => res.writeHead(500).end('database down'));
    expect(await permissive.send(request(url))).toMatchObject({
      status: 500,
      error: 'HTTP 500: database down',
    });
  });

  it('reads at most 64 KiB of an endless answer and settles', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      const chunk = 'x'.repeat(16 * 1024);
      const write = () => {
        while (res.write(chunk));
        res.once('drain', write);
      };
      write();
    });
    expect(await permissive.send(request(url))).toMatchObject({ ok: true, status: 200 });
  });

  it('gives up on an endpoint that does not answer in time', async () => {
    const url = await serve(() => {
      // Never answers.
    });
    const result = await new WebhookSender({ allowPrivate: true }, undefined, 300).send(request(url));
    expect(result).toMatchObject({ ok: false, status: null, error: 'no answer within 0.3 s' });
  });

  it('reports a refused connection', async () => {
    const url = await serve((_req, res) => res.end());
    open[0]?.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await permissive.send(request(url))).toMatchObject({
      ok: false,
      status: null,
      error: 'connection refused',
    });
  });

  it.each([
    ['http://example.com/hooks', 'only https:// is allowed'],
    ['https://127.0.0.1/hooks', '127.0.0.1 is not a public address'],
    ['https://[::1]/hooks', '::1 is not a public address'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is not a public address'],
    ['https://[::127.0.0.1]/hooks', '::7f00:1 is not a public address'],
    ['https://[::a9fe:a9fe]/latest/meta-data', '::a9fe:a9fe is not a public address'],
    ['https://[::10.0.0.1]/hooks', '::a00:1 is not a public address'],
    ['https://[::ffff:192.168.1.1]/hooks', '::ffff:c0a8:101 is not a public address'],
    ['https://[64:ff9b::a9fe:a9fe]/hooks', '64:ff9b::a9fe:a9fe is not a public address'],
  ])('refuses %s without connecting, unless private targets are allowed', async (url, error) => {
    expect(await strict.send(request(url))).toMatchObject({ ok: false, status: null, error });
  });

  it('refuses a name whose addresses include a private one, checked when connecting', async () => {
    const sender = new WebhookSender({ allowPrivate: false }, () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ]),
    );
    expect(await sender.send(request('https://hooks.example.com/in'))).toMatchObject({
      ok: false,
      status: null,
      error: 'hooks.example.com resolves to 10.0.0.7, which is not a public address',
    });
  });

  it.each(['::7f00:1', '::a9fe:a9fe', '::a00:1', '::c0a8:101', '::ffff:a9fe:a9fe', '2002:a9fe:a9fe::1'])(
    'refuses a name that resolves to %s, an IPv6 address carrying a local IPv4 one, checked when connecting',
    async (address) => {
      const sender = new WebhookSender({ allowPrivate: false }, () =>
        Promise.resolve([{ address, family: 6 }]),
      );
      expect(await sender.send(request('https://hooks.example.com/in'))).toMatchObject({
        ok: false,
        status: null,
        error: `hooks.example.com resolves to ${address}, which is not a public address`,
      });
    },
  );
});
