import { beforeAll, expect, it, vi } from 'vitest';
import { KeySigner } from '../../core/key-signature.js';
import { BRAND_KEY } from '../../core/secret-keys.js';
import { OPERATOR } from '../../services/audit/audit.js';
import { createBrandKey, revokeBrandKey } from '../../services/keys/keys.js';
import { listenOnLoopback } from '#test/support/app.js';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend } from '#test/support/databases.js';
import { PATH } from '#test/support/fixtures/brand-agent.js';
import { useFixture } from '#test/support/http-fixture.js';

/**
 * Keys the key cache does not hold, verified by their signature instead of a lookup (docs/keys.md "Brand read keys"),
 * as clients send them: over a socket, at serve's log level (info).
 */
describeEachBackend('POST /functions/v1/brand-agent: signed keys', (backend) => {
  const fixture = useFixture(backend, { app: { logLevel: 'info' } });
  let base: string;

  beforeAll(async () => {
    const f = fixture();
    base = `http://127.0.0.1:${String(await listenOnLoopback(f.app))}`;
    await vi.waitFor(() => {
      expect(f.app.services.credentials.verifiesBySignature('brand')).toBe(true);
    });
  });

  const read = (key: string, workspaceId: string) =>
    fetch(`${base}${PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'context', workspace_id: workspaceId }),
    });
  const verified = () => fixture().app.services.credentials.signatureStats.verified;

  it('reads with a new key verified by its signature, then from the cache', async () => {
    const f = fixture();
    const created = await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'signed' });
    const before = verified();
    const first = await read(created.key, f.workspaceId);
    expect(first.status).toBe(200);
    expect(first.headers.get('brand-key-expires')).toBe(created.expires_at);
    expect(await first.json()).toMatchObject({ workspace_id: f.workspaceId, name: 'Acme Coffee' });
    expect((await read(created.key, f.workspaceId)).status).toBe(200);
    expect(verified()).toBe(before + 1);
    const metrics = await f.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^brand_context_keys_verified_by_signature_total \d+$/m);
  });

  it('verifies a new key by its signature for any valid body, sections included, and refuses an invalid body with its 400', async () => {
    const f = fixture();
    const created = await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'sections' });
    const before = verified();
    const send = (body: object) =>
      fetch(`${base}${PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const sections = await send({ action: 'context', workspace_id: f.workspaceId, sections: ['colors'] });
    expect(sections.status).toBe(200);
    expect(Object.keys((await sections.json()) as object)).toContain('colors');
    expect(verified()).toBe(before + 1);
    const other = await createBrandKey(f.deps, OPERATOR, {
      workspaceId: f.workspaceId,
      name: 'invalid body',
    });
    const invalid = await fetch(`${base}${PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'context', workspace_id: f.workspaceId, format: 'yaml' }),
    });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ code: 'invalid_request' });
  });

  it('refuses a key revoked a moment ago on the very next read, and after, with key_revoked', async () => {
    const f = fixture();
    const created = await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'revoked' });
    expect((await read(created.key, f.workspaceId)).status).toBe(200);
    await revokeBrandKey(f.deps, OPERATOR, f.workspaceId, created.id);
    for (const wait of [0, 200]) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      const refused = await read(created.key, f.workspaceId);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'key_revoked' });
    }
  });

  it('refuses a new key sent for another workspace with workspace_forbidden, as any key', async () => {
    const f = fixture();
    const created = await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'elsewhere' });
    const refused = await read(created.key, f.otherWorkspaceId);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'workspace_forbidden' });
    expect((await read(created.key, 'ws_doesnotexist00000000')).status).toBe(404);
  });

  it('refuses a key signed with another secret, and an unsigned one, with invalid_key', async () => {
    const f = fixture();
    const forged = new KeySigner(BRAND_KEY, 'bk', Buffer.alloc(32, 1)).issue(
      f.workspaceId,
      Date.now() + DAY_MS,
    );
    for (const key of [forged.key, BRAND_KEY.generate()]) {
      const refused = await read(key, f.workspaceId);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'invalid_key' });
    }
  });

  it('refuses a signed key past its expiry with key_expired', async () => {
    const f = fixture();
    const created = await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'expiring' });
    f.clock.advance(91 * DAY_MS);
    try {
      const refused = await read(created.key, f.workspaceId);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'key_expired' });
    } finally {
      f.clock.advance(-91 * DAY_MS);
    }
  });
});
