import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { api, ApiError, onUnauthorized, setCsrfToken, url } from './api';
import type { CreatedAccessToken } from '../../src/contract/access-tokens';
import type { MemberCredentials } from '../../src/contract/members';
import type { DeliveryPage, Webhook } from '../../src/contract/webhooks';
import type { Workspace } from '../../src/contract/workspaces';

const WORKSPACES = {
  workspaces: [{ id: 'ws_1', name: 'Acme', created_at: '2025-01-01T00:00:00.000Z', role: 'owner' }],
};

/** The service's answers, in order; returns the calls the console made. */
function answerWith(...responses: Response[]) {
  const fetch = vi.fn<typeof globalThis.fetch>();
  for (const response of responses) fetch.mockResolvedValueOnce(response);
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const problem = (status: number, code: string, extra: Record<string, unknown> = {}, headers = {}) =>
  json(
    {
      type: `https://brand-context.dev/problems/${code}`,
      title: code,
      status,
      code,
      detail: `The ${code} detail.`,
      resolution: `The ${code} resolution.`,
      request_id: 'req_1',
      ...extra,
    },
    status,
    { 'content-type': 'application/problem+json', ...headers },
  );

afterEach(() => {
  vi.unstubAllGlobals();
  setCsrfToken(null);
  onUnauthorized(() => undefined);
});

describe('api', () => {
  it('answers each call with the type its operation’s schema gives, from the contract', async () => {
    // Functions, not calls: expectTypeOf checks their types and never runs them.
    expectTypeOf(() => api.get(url('/api/v1/workspaces'))).returns.resolves.toEqualTypeOf<{
      workspaces: Workspace[];
    }>();
    const deliveries = url('/api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries', {
      id: 'w',
      webhook_id: 'h',
    });
    expectTypeOf(() => api.get(deliveries)).returns.resolves.toEqualTypeOf<DeliveryPage>();
    // 200 with what revoke_credentials revoked, or 204.
    const member = url('/api/v1/workspaces/{id}/members/{user_id}', { id: 'w', user_id: 'u' });
    expectTypeOf(() => api.delete(member)).returns.resolves.toEqualTypeOf<MemberCredentials | undefined>();
    expectTypeOf(() =>
      api.post(url('/api/v1/tokens'), { name: 'ci', expires_in_days: 7 }),
    ).returns.resolves.toEqualTypeOf<CreatedAccessToken>();

    answerWith(json(WORKSPACES));
    expect(await api.get(url('/api/v1/workspaces'))).toEqual(WORKSPACES);
  });

  it('does not compile a call the table does not have, a body of another shape, or a missing parameter', () => {
    // @ts-expect-error: the console's session has no GET in the table (it asks GET …/session/status).
    expectTypeOf(() => api.get(url('/auth/v1/session')));
    // @ts-expect-error: expires_in_days is a number.
    expectTypeOf(() => api.post(url('/api/v1/tokens'), { name: 'ci', expires_in_days: '7' }));
    const webhook = url('/api/v1/workspaces/{id}/webhooks/{webhook_id}', { id: 'w', webhook_id: 'h' });
    expectTypeOf(() => api.patch(webhook, { enabled: true })).returns.resolves.toEqualTypeOf<Webhook>();
    // @ts-expect-error: a webhook is PATCHed, not PUT.
    expectTypeOf(() => api.put(webhook, { enabled: true }));
    // @ts-expect-error: {webhook_id} is missing.
    expect(() => url('/api/v1/workspaces/{id}/webhooks/{webhook_id}', { id: 'w' })).not.toThrow();
  });

  it('fills in the parameters encoded, leaves undefined query values out, and sends writes with the CSRF token', async () => {
    const fetch = answerWith(new Response(null, { status: 204 }));
    setCsrfToken('csrf-1');
    const target = url(
      '/api/v1/workspaces/{id}/members/{user_id}',
      { id: 'ws/1', user_id: 'u 1' },
      { revoke_credentials: undefined },
    );
    expect(target).toBe('/api/v1/workspaces/ws%2F1/members/u%201');
    expect(await api.delete(target)).toBeUndefined();
    expect(fetch).toHaveBeenCalledWith(target, expect.objectContaining({ method: 'DELETE', body: null }));
    expect(fetch.mock.calls[0]?.[1]?.headers).toMatchObject({ 'x-csrf-token': 'csrf-1' });
  });

  it('turns a problem+json answer into the ApiError the pages show, with its field errors and Retry-After', async () => {
    answerWith(
      problem(400, 'invalid_request', { errors: [{ field: 'colors.primary', message: 'must be #RRGGBB' }] }),
      problem(429, 'rate_limited', {}, { 'retry-after': '30' }),
    );
    const brand = url('/api/v1/workspaces/{id}/brand', { id: 'w' });

    const invalid = await api.put(brand, { name: 'Acme' }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ApiError);
    expect(invalid).toMatchObject({
      status: 400,
      code: 'invalid_request',
      detail: 'The invalid_request detail.',
      resolution: 'The invalid_request resolution.',
    });
    expect(invalid instanceof ApiError && invalid.fieldError('colors')).toBe('must be #RRGGBB');

    await expect(api.get(brand)).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 30 });
  });

  it('ends the session on a 401, except where a 401 is the answer (a wrong password)', async () => {
    const ended = vi.fn();
    onUnauthorized(ended);
    answerWith(problem(401, 'invalid_credentials'), problem(401, 'token_expired'));

    await expect(
      api.post(
        url('/auth/v1/session'),
        { email: 'a@acme.example', password: 'wrong' },
        { endSessionOn401: false },
      ),
    ).rejects.toMatchObject({ status: 401, code: 'invalid_credentials' });
    expect(ended).not.toHaveBeenCalled();

    await expect(api.get(url('/api/v1/workspaces'))).rejects.toMatchObject({ code: 'token_expired' });
    expect(ended).toHaveBeenCalledOnce();
  });

  it('in development, refuses an answer that is not what its operation’s schema says', async () => {
    answerWith(
      json({ workspaces: [{ id: 'ws_1', name: 'Acme' }] }),
      json({ webhooks: [] }),
      json({ keys: [] }),
      json({ webhooks: [] }),
    );
    const refused = await api.get(url('/api/v1/workspaces')).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'unexpected_response' });
    expect(refused instanceof ApiError && refused.detail).toMatch(
      /^The answer to GET \/api\/v1\/workspaces is not what the contract says:.*workspaces\[0\]\.created_at/s,
    );
    // …/webhooks is the webhooks listing, a literal segment before {collection}; …/brand-keys a key collection.
    await expect(api.get(url('/api/v1/workspaces/{id}/webhooks', { id: 'w' }))).resolves.toEqual({
      webhooks: [],
    });
    const keys = url('/api/v1/workspaces/{id}/{collection}', { id: 'w', collection: 'brand-keys' });
    await expect(api.get(keys)).resolves.toEqual({ keys: [] });
    await expect(api.get(keys)).rejects.toMatchObject({ code: 'unexpected_response' });
  });
});
