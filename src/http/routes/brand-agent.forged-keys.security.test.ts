import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { KeySigner } from '../../core/key-signature.js';
import { BRAND_KEY } from '../../core/secret-keys.js';
import { listenOnLoopback, startTestApp, type TestApp } from '#test/support/app.js';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { PATH } from '#test/support/fixtures/brand-agent.js';
import { auditLog, call, useFixture } from '#test/support/http-fixture.js';

/** How long every node may take to refuse a signed key that has no row (docs/keys.md "Brand read keys"). */
const UNRECORDED_REFUSAL_MS = 5000;

/** The values of the settings table that could be a signing secret: 32 bytes in base64 or base64url. */
function secretsIn(dump: Record<string, unknown[]>): Buffer[] {
  const rows = (dump.settings ?? []) as { value: string }[];
  return rows
    .flatMap(({ value }) => [Buffer.from(value, 'base64'), Buffer.from(value, 'base64url')])
    .filter((bytes) => bytes.length === 32);
}

/**
 * Keys nobody created through the service, as someone holding a copy of the database or the signing secret
 * would make them: refused at once, or within seconds on every node and then listed and revocable.
 */
describeEachBackend('POST /functions/v1/brand-agent: keys the service did not make', (backend) => {
  const fixture = useFixture(backend, { app: { logLevel: 'info' } });
  /** A second node on the same database. */
  let other: TestApp;
  const bases = new Map<TestApp['app'], string>();

  beforeAll(async () => {
    const f = fixture();
    other = await startTestApp(f.database, { logLevel: 'info', usageFlushMs: DAY_MS });
    for (const node of [f, other]) {
      bases.set(node.app, `http://127.0.0.1:${String(await listenOnLoopback(node.app))}`);
      await vi.waitFor(() => {
        expect(node.app.services.credentials.verifiesBySignature('brand')).toBe(true);
      });
    }
  });

  afterAll(async () => {
    await other.close();
  });

  const read = async (node: TestApp, key: string, workspaceId: string) => {
    const response = await fetch(`${bases.get(node.app) ?? ''}${PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'context', workspace_id: workspaceId }),
    });
    return { status: response.status, body: (await response.json()) as { code?: string } };
  };

  /** The signer the service makes keys with: what someone who stole its secret would hold. */
  const serviceSigner = (node: TestApp): KeySigner => {
    const signer = node.deps.keySigners?.brand;
    if (!signer) throw new Error('brand read keys are not signed');
    return signer;
  };

  it('refuses a key made with any secret a copy of the database holds, with invalid_key', async () => {
    const f = fixture();
    const secrets = secretsIn(await snapshotTables(f.database.config));
    for (const secret of secrets) {
      const forged = new KeySigner(BRAND_KEY, 'bk', secret).issue(f.workspaceId, f.clock.now() + 30 * DAY_MS);
      for (const node of [f, other]) {
        expect(await read(node, forged.key, f.workspaceId)).toMatchObject({
          status: 401,
          body: { code: 'invalid_key' },
        });
      }
    }
  });

  it('refuses a correctly signed key that says it expires more than 90 days from now, with invalid_key', async () => {
    const f = fixture();
    const signer = serviceSigner(f);
    const now = f.clock.now();
    for (const expiresAt of [now + 91 * DAY_MS, Date.UTC(8888, 0, 1)]) {
      const forged = signer.issue(f.workspaceId, expiresAt);
      expect(await read(f, forged.key, f.workspaceId)).toMatchObject({
        status: 401,
        body: { code: 'invalid_key' },
      });
    }
  });

  it('refuses a signed key that has no row on every node within seconds, lists it as revoked, counts it and warns once', async () => {
    const f = fixture();
    const forged = serviceSigner(f).issue(f.workspaceId, f.clock.now() + 30 * DAY_MS);
    // Until it is found to have no row, a node may serve it: the first read is not asked to fail.
    await read(f, forged.key, f.workspaceId);
    const started = Date.now();
    await vi.waitFor(
      async () => {
        for (const node of [other, f]) {
          expect(await read(node, forged.key, f.workspaceId)).toMatchObject({
            status: 401,
            body: { code: 'key_revoked' },
          });
        }
      },
      { timeout: UNRECORDED_REFUSAL_MS, interval: 100 },
    );
    expect(Date.now() - started).toBeLessThan(UNRECORDED_REFUSAL_MS);

    const listed = await call(f, f.owner.token, 'GET', `/api/v1/workspaces/${f.workspaceId}/brand-keys`);
    expect(listed.json<{ keys: unknown[] }>().keys).toContainEqual(
      expect.objectContaining({
        id: forged.id,
        name: 'Unrecorded key (refused)',
        prefix: BRAND_KEY.hint(forged.key).prefix,
        status: 'revoked',
      }),
    );
    expect(await auditLog(f)).toContainEqual(
      expect.objectContaining({
        action: 'brand_key.revoked',
        actor: { type: 'system' },
        target: { type: 'brand_key', id: forged.id },
      }),
    );

    let counted = 0;
    for (const node of [f, other]) {
      const metrics = await node.app.inject({ method: 'GET', url: '/metrics' });
      counted += Number(/^brand_context_unrecorded_keys_total (\d+)$/m.exec(metrics.body)?.[1] ?? Number.NaN);
    }
    expect(counted).toBe(1);
    const logs = [...f.logs, ...other.logs];
    const warnings = logs.filter((line) => line.includes('"level":40') && line.includes(forged.id));
    // Named by its id, as the key list shows it: never the key.
    expect(warnings).toHaveLength(1);
    for (const line of logs) {
      expect(line).not.toContain(forged.key);
      expect(line).not.toContain(forged.key.slice(4, 34));
    }
  });
});
