import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BRAND_KEY, redactKeys } from './core/secret-keys.js';
import { createLogger, lazyChildLoggerFactory } from './logger.js';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const text = () => chunks.join('');
  const lines = () =>
    text()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stream, lines, text };
}

describe('redactKeys, for request lines', () => {
  it('removes a brand key embedded in a URL', () => {
    const key = BRAND_KEY.generate();
    const redacted = redactKeys(`/functions/v1/brand-agent?key=${key}&workspace_id=ws_1`);
    expect(redacted).toBe('/functions/v1/brand-agent?key=brk_[REDACTED]&workspace_id=ws_1');
    expect(redacted).not.toContain(key.slice(4));
  });

  it('removes every brand key in the text', () => {
    const [first, second] = [BRAND_KEY.generate(), BRAND_KEY.generate()];
    const redacted = redactKeys(`/a/${first}/b?k=${second}`);
    expect(redacted).toBe('/a/brk_[REDACTED]/b?k=brk_[REDACTED]');
  });

  it('leaves text without a key unchanged', () => {
    const url = '/functions/v1/brand-agent?workspace_id=ws_1&note=brick_short';
    expect(redactKeys(url)).toBe(url);
  });

  it('masks a key cut short: most of a secret is still a secret', () => {
    expect(redactKeys('/x?note=brk_short')).toBe('/x?note=brk_[REDACTED]');
  });
});

describe('createLogger', () => {
  it('writes JSON lines with the service name and message', () => {
    const out = capture();
    createLogger('info', out.stream).info({ request_id: 'req_1' }, 'request');
    expect(out.lines()).toEqual([
      expect.objectContaining({ service: 'brand-context', msg: 'request', request_id: 'req_1', level: 30 }),
    ]);
  });

  it('writes nothing below its level', () => {
    const out = capture();
    const logger = createLogger('info', out.stream);
    logger.debug('hidden');
    logger.warn('shown');
    expect(out.lines().map((line) => line.msg)).toEqual(['shown']);
  });

  it('redacts the Authorization and Cookie headers of a request', () => {
    const out = capture();
    const key = BRAND_KEY.generate();
    createLogger('info', out.stream).info(
      { req: { method: 'POST', headers: { authorization: `Bearer ${key}`, cookie: 'session=s3cr3t' } } },
      'request',
    );
    expect(out.lines()[0]?.req).toEqual({
      method: 'POST',
      headers: { authorization: '[REDACTED]', cookie: '[REDACTED]' },
    });
    expect(out.text()).not.toContain(key);
    expect(out.text()).not.toContain('s3cr3t');
  });

  it('masks a key or token wherever it stands in a line: messages, error messages and stacks', () => {
    const out = capture();
    const key = BRAND_KEY.generate();
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJlLXNlY3JldA';
    const logger = createLogger('info', out.stream);
    logger.info({ note: `x_${key}`, deep: { list: [`Bearer%20${key}`] } }, `saw ${token}`);
    logger.error({ err: new Error(`query failed for ${key}`) }, 'failed');
    expect(out.text()).not.toContain(key.slice(4, 34));
    expect(out.text()).not.toContain('c2lnbmF0dXJlLXNlY3JldA');
    expect(out.lines()[0]).toMatchObject({ note: 'x_brk_[REDACTED]', msg: 'saw [REDACTED_TOKEN]' });
  });

  it('never writes the raw request bytes that Node attaches to a client error', () => {
    const out = capture();
    const key = BRAND_KEY.generate();
    const error = Object.assign(new Error('Parse Error: Invalid header value char'), {
      code: 'HPE_INVALID_HEADER_TOKEN',
      rawPacket: Buffer.from(`GET / HTTP/1.1\r\nAuthorization: Bearer ${key}\r\n\r\n`),
    });
    createLogger('trace', out.stream).trace({ err: error }, 'client error');
    const [line] = out.lines();
    expect(line?.err).toMatchObject({ code: 'HPE_INVALID_HEADER_TOKEN' });
    expect(line?.err).not.toHaveProperty('rawPacket');
    expect(out.text()).not.toContain('Authorization');
  });

  it('masks each secret it is given wherever it stands, as written or percent-encoded in a URL', () => {
    const out = capture();
    const token = 'metrics+token/of-the.operator~0123=';
    const logger = createLogger('info', out.stream, [token, undefined]);
    logger.info({ url: `/metrics?token=${token}` }, 'request');
    logger.info({ url: `/metrics?token=${encodeURIComponent(token)}&other=1` }, `saw ${token}`);
    expect(out.text()).not.toContain('metrics+token');
    expect(out.text()).not.toContain('metrics%2Btoken');
    expect(out.lines()).toEqual([
      expect.objectContaining({ url: '/metrics?token=[REDACTED]' }),
      expect.objectContaining({ url: '/metrics?token=[REDACTED]&other=1', msg: 'saw [REDACTED]' }),
    ]);
  });

  it('redacts password and key fields, at the top level and one level down', () => {
    const out = capture();
    const key = BRAND_KEY.generate();
    const logger = createLogger('info', out.stream);
    logger.info({ password: 'hunter2-top', key }, 'top level');
    logger.info(
      { user: { name: 'ann', password: 'hunter2-nested' }, created: { id: 'key_1', key } },
      'nested',
    );
    const [top, nested] = out.lines();
    expect(top).toMatchObject({ password: '[REDACTED]', key: '[REDACTED]' });
    expect(nested).toMatchObject({
      user: { name: 'ann', password: '[REDACTED]' },
      created: { id: 'key_1', key: '[REDACTED]' },
    });
    expect(out.text()).not.toContain('hunter2');
    expect(out.text()).not.toContain(key);
  });
});

describe('lazyChildLoggerFactory, for request loggers', () => {
  it("writes a request's lines with its bindings, at its parent's level until it is given its own", () => {
    const out = capture();
    const request = lazyChildLoggerFactory(createLogger('info', out.stream), { request_id: 'req_7' }, {});
    expect(request.level).toBe('info');
    request.debug('hidden');
    request.error({ status: 500 }, 'request failed');
    request.level = 'debug';
    request.debug('now shown');
    expect(out.lines()).toEqual([
      expect.objectContaining({ request_id: 'req_7', status: 500, msg: 'request failed', level: 50 }),
      expect.objectContaining({ request_id: 'req_7', msg: 'now shown', level: 20 }),
    ]);
  });

  it("takes a route's own level from Fastify's options", () => {
    const out = capture();
    const request = lazyChildLoggerFactory(createLogger('info', out.stream), {}, { level: 'warn' });
    expect(request.level).toBe('warn');
    request.info('hidden');
    request.warn('shown');
    expect(out.lines().map((line) => line.msg)).toEqual(['shown']);
  });
});
