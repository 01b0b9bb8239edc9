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

  it('has five 401 codes for brand read keys, five for user sign-in and tokens, three for workspace API keys', () => {
    expect(withStatus(401).sort()).toEqual([...brandKey401s, ...userToken401s, ...apiKey401s].sort());
  });

  it.each(apiKey401s)('tells a client with a bad workspace API key (%s) to create a new one', (code) => {
    expect(PROBLEMS[code].resolution).toContain('Create a workspace API key in Settings → Agent Access');
  });

  it.each(brandKey401s)('gives %s the specification resolution for a 401', (code) => {
    expect(PROBLEMS[code].resolution).toContain(SPEC_401);
  });

  it('tells a client with no key how to send one', () => {
    expect(PROBLEMS.missing_key.resolution).toContain('Authorization: Bearer <BRAND_READ_KEY>');
  });

  it('gives workspace_forbidden (403) the specification resolution', () => {
    expect(PROBLEMS.workspace_forbidden).toMatchObject({
      status: 403,
      resolution: 'Confirm that the key was created within that workspace.',
    });
  });

  it('gives workspace_not_found (404) the specification resolution', () => {
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
  it('takes its status and resolution from the catalogue', () => {
    const error = new AppError('key_expired', 'The key expired on 2025-01-01.');
    expect(error.status).toBe(401);
    expect(error.resolution).toBe(SPEC_401);
    expect(error.code).toBe('key_expired');
    expect(error.detail).toBe('The key expired on 2025-01-01.');
    expect(error.message).toBe('The key expired on 2025-01-01.');
    expect(error.name).toBe('AppError');
    expect(error).toBeInstanceOf(Error);
  });

  it('keeps the field issues it was given', () => {
    const fields = [
      { field: 'workspace_id', message: 'is required' },
      { field: 'knowledge[2].kind', message: 'must be fact, guideline or reference' },
    ];
    const error = new AppError('invalid_request', 'The request has 2 problems.', fields);
    expect(error.status).toBe(400);
    expect(error.fields).toEqual(fields);
  });

  it('has no field issues unless given some', () => {
    expect(new AppError('workspace_not_found', 'No workspace ws_1.').fields).toEqual([]);
  });
});
