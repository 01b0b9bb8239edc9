import { describe, expect, it } from 'vitest';
import { AppError, PROBLEMS, type ProblemCode } from './errors.js';

const SPEC_401 = 'Revoke the key and create a replacement in Settings → Agent Access.';
const codes = Object.keys(PROBLEMS) as ProblemCode[];
const withStatus = (status: number) => codes.filter((code) => PROBLEMS[code].status === status);

describe('PROBLEMS', () => {
  const brandKey401s = ['invalid_key', 'key_expired', 'key_revoked', 'malformed_key', 'missing_key'] as const;
  const userToken401s = [
    'invalid_credentials',
    'invalid_token',
    'missing_token',
    'token_expired',
    'token_revoked',
  ];
  const apiKey401s = ['api_key_expired', 'api_key_invalid', 'api_key_revoked'] as const;
  const emailKey401s = [
    'email_key_expired',
    'email_key_invalid',
    'email_key_missing',
    'email_key_revoked',
  ] as const;
  const metricsToken401s = ['invalid_metrics_token', 'metrics_token_required'] as const;

  it('has five 401 codes for brand read keys, five for user sign-in and tokens, three for workspace API keys, four for transactional email keys, two for the metrics token', () => {
    expect(withStatus(401).sort()).toEqual(
      [...brandKey401s, ...userToken401s, ...apiKey401s, ...emailKey401s, ...metricsToken401s].sort(),
    );
  });

  it.each(emailKey401s)(
    'tells a client with a bad transactional email key (%s) to ask the operator',
    (code) => {
      expect(PROBLEMS[code].resolution).toContain('issued by the operator of this service');
    },
  );

  it.each(apiKey401s)('tells a client with a bad workspace API key (%s) to create a new one', (code) => {
    expect(PROBLEMS[code].resolution).toContain('Create a workspace API key in Settings → Agent Access');
  });

  it.each(['invalid_key', 'key_expired', 'key_revoked'] as const)(
    'gives %s the resolution docs/reading-brand-context.md "Errors" documents for a 401',
    (code) => {
      expect(PROBLEMS[code].resolution).toBe(SPEC_401);
    },
  );

  it.each(['missing_key', 'malformed_key'] as const)(
    'tells a client with no key or a mistyped header (%s) how to send the header, before any word of revoking',
    (code) => {
      const { resolution } = PROBLEMS[code];
      expect(resolution).toMatch(/^Send the (whole )?key as "Authorization: Bearer brk_…"/);
      // A good key sent in the wrong form is no reason to revoke it: that is for a key that is lost.
      expect(resolution).not.toContain(SPEC_401);
      expect(resolution).toContain('Settings → Agent Access');
    },
  );

  it('gives workspace_forbidden (403) the resolution docs/reading-brand-context.md "Errors" documents', () => {
    expect(PROBLEMS.workspace_forbidden).toMatchObject({
      status: 403,
      resolution: 'Confirm that the key was created within that workspace.',
    });
  });

  it('gives workspace_not_found (404) the resolution docs/reading-brand-context.md "Errors" documents', () => {
    expect(PROBLEMS.workspace_not_found).toMatchObject({
      status: 404,
      resolution: 'Check the workspace id in Settings → Agent Access.',
    });
  });

  it.each(codes)('gives %s an HTTP error status, a title and a resolution', (code) => {
    const { status, title, resolution } = PROBLEMS[code];
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(600);
    expect(title).not.toBe('');
    expect(resolution).toMatch(/\.$/);
  });
});

describe('AppError', () => {
  it('takes its status, resolution and detail from the catalogue', () => {
    const error = new AppError('key_expired', { expiresAt: '2025-01-01T00:00:00.000Z' });
    expect(error.status).toBe(401);
    expect(error.resolution).toBe(SPEC_401);
    expect(error.code).toBe('key_expired');
    expect(error.detail).toBe('The brand read key expired at 2025-01-01T00:00:00.000Z.');
    expect(error.message).toBe(error.detail);
    expect(error.name).toBe('AppError');
    expect(error).toBeInstanceOf(Error);
  });

  it('keeps the field issues it was given', () => {
    const fields = [
      { field: 'workspace_id', message: 'is required' },
      { field: 'knowledge[2].kind', message: 'must be fact, guideline or reference' },
    ];
    const error = new AppError('invalid_request', { reason: 'schema', fields }, { fields });
    expect(error.status).toBe(400);
    expect(error.fields).toEqual(fields);
  });

  it('has no field issues or headers unless given some', () => {
    const error = new AppError('workspace_not_found', { workspaceId: 'ws_1' });
    expect(error.fields).toEqual([]);
    expect(error.headers).toEqual({});
  });

  it('keeps the headers it was given, and advice in place of the resolution', () => {
    const error = new AppError(
      'workspace_forbidden',
      { reason: 'not_member', workspaceId: 'ws_1' },
      { headers: { 'retry-after': '5' }, advice: 'Ask an owner.' },
    );
    expect(error.headers).toEqual({ 'retry-after': '5' });
    expect(error.resolution).toBe('Ask an owner.');
  });

  it('records where a failure (5xx) was raised, but not a refusal (4xx), which is only answered', () => {
    const refusal = new AppError('rate_limited', { limit: 'reads', retryAfter: 3 });
    expect(refusal.stack).toBe('AppError: Too many reads with this credential; try again in 3 s.');
    expect(new AppError('internal_error').stack).toMatch(/\n\s+at /);
    // The process's own setting is left as it was.
    expect(new Error('plain').stack).toMatch(/\n\s+at /);
  });
});

describe('detail templates', () => {
  it.each(codes)('gives %s a detail: fixed text or a template', (code) => {
    const { detail } = PROBLEMS[code];
    if (typeof detail === 'string') expect(detail).toMatch(/\.$/);
    else expect(detail).toBeTypeOf('function');
  });

  it.each([
    [new AppError('workspace_not_found', { workspaceId: 'ws_8fK2' }), 'Workspace ws_8fK2 does not exist.'],
    [new AppError('last_owner'), 'This is the workspace’s only owner.'],
    [
      new AppError('invalid_token', { reason: 'lifetime', lifetime: 7200, maxLifetime: 3600 }),
      "The access token's lifetime (exp − iat, 7200 s) is longer than this service issues (3600 s).",
    ],
    [new AppError('malformed_key', { reason: 'scheme' }), 'The Authorization header must be "Bearer <key>".'],
    [
      new AppError('rate_limited', { limit: 'account_and_ip', retryAfter: 12 }),
      'Too many failed sign-ins to this account from your address; try again in 12 s.',
    ],
    [
      new AppError('bad_request', { reason: 'http', parserReason: 'Invalid method' }),
      'The request is not valid HTTP/1.1 (Invalid method).',
    ],
    [new AppError('bad_request', { reason: 'http' }), 'The request is not valid HTTP/1.1.'],
    [
      new AppError('unsupported_action', { action: `${'x'.repeat(64)}yz` }),
      `Action "${'x'.repeat(64)}" is not supported; use "context".`,
    ],
    [
      new AppError('invalid_request', {
        reason: 'input',
        subject: 'Invalid input',
        fields: [
          { field: '', message: 'must be an object' },
          { field: 'name', message: 'is required' },
        ],
      }),
      'Invalid input: body must be an object; name is required.',
    ],
    [
      new AppError('invalid_request', {
        reason: 'schema',
        fields: [
          { field: '', message: 'must be an object' },
          { field: 'name', message: 'is required' },
        ],
      }),
      'Invalid request: the body must be an object; name is required.',
    ],
  ])('renders detail %#', (error, detail) => {
    expect(error.detail).toBe(detail);
  });
});
