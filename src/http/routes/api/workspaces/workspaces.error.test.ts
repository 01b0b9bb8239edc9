import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, expectNonJsonRefused, refused, useFixture } from '#test/support/http-fixture.js';

const WORKSPACES = '/api/v1/workspaces';

describeEachBackend('Workspaces (GET and POST /api/v1/workspaces): errors', (backend) => {
  const fixture = useFixture(backend);

  it('refuses a workspace without a name, or with unknown fields, with 400 naming the field, and creates nothing', async () => {
    const f = fixture();
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: 'Acme', plan: 'pro' }, 'plan'],
    ] as const) {
      const response = await refused(
        f,
        () => call(f, f.owner.token, 'POST', WORKSPACES, { body }),
        '400 invalid_request',
      );
      expect(response.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toContain(field);
    }
  });

  it('answers 400 invalid_json to a body that is not JSON and 415 to one that is not sent as JSON, and creates nothing', async () => {
    const f = fixture();
    await expectNonJsonRefused(f, f.owner.token, 'POST', WORKSPACES);
  });
});
