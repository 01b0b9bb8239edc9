import { describe, expect, it } from 'vitest';
import {
  grantableScopes,
  isLoopbackHost,
  isMetadataDocumentId,
  isRegisteredRedirect,
  mcpResource,
  OAUTH_SCOPES,
  OAuthError,
  parseScopeParameter,
  redirectHost,
  redirectUriProblem,
  roleAllowsScope,
  SCOPE_PERMISSIONS,
} from './oauth.js';
import { can, ROLES } from './roles.js';
import { redactKeys } from './secret-keys.js';

describe('scopes', () => {
  it('stands each scope for the permission of the same name', () => {
    expect(SCOPE_PERMISSIONS).toEqual({
      'brand:read': ['brand.read'],
      'campaigns:read': ['campaigns.read'],
      'campaigns:write': ['campaigns.write'],
    });
  });

  it('reads a scope parameter as its known scopes in their order, every scope when empty, undefined when one is unknown', () => {
    expect(parseScopeParameter('campaigns:write brand:read')).toEqual(['brand:read', 'campaigns:write']);
    expect(parseScopeParameter(undefined)).toEqual([...OAUTH_SCOPES]);
    expect(parseScopeParameter('  ')).toEqual([...OAUTH_SCOPES]);
    expect(parseScopeParameter('brand:read brand:write')).toBeUndefined();
  });

  it('lets a role grant a scope only when it holds every permission the scope stands for', () => {
    for (const role of ROLES)
      for (const scope of OAUTH_SCOPES)
        expect(roleAllowsScope(role, scope)).toBe(SCOPE_PERMISSIONS[scope].every((p) => can(role, p)));
    expect(grantableScopes('member', ['brand:read'])).toEqual(['brand:read']);
  });
});

describe('redirect URIs', () => {
  it.each([
    'https://claude.ai/api/mcp/auth_callback',
    'http://127.0.0.1:33418/callback',
    'http://localhost:6274/oauth/callback',
    'http://[::1]:8080/cb',
    'https://app.example.com/cb?tenant=1',
  ])('takes %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });

  it.each([
    ['http://app.example.com/cb', 'may use http only on a loopback host'],
    ['https://app.example.com/cb#frag', 'must not have a fragment'],
    ['https://user:pass@app.example.com/cb', 'must not contain a user name or password'],
    ['javascript:alert(1)', 'must be https, or http on a loopback host'],
    ['/relative', 'is not an absolute URL'],
    [`https://app.example.com/${'a'.repeat(2100)}`, 'is longer than 2048 characters'],
  ])('refuses %s: it %s', (uri, problem) => {
    expect(redirectUriProblem(uri)).toContain(problem);
  });

  it('matches registered URIs exactly, character for character', () => {
    const registered = ['http://127.0.0.1:33418/callback'];
    expect(isRegisteredRedirect(registered, 'http://127.0.0.1:33418/callback')).toBe(true);
    for (const other of [
      'http://127.0.0.1:33418/callback/',
      'http://127.0.0.1:1/callback',
      'HTTP://127.0.0.1:33418/callback',
    ])
      expect(isRegisteredRedirect(registered, other)).toBe(false);
  });

  it('knows loopback hosts, and nothing that merely looks like one', () => {
    expect(['localhost', '127.0.0.1', '127.5.6.7', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['localhost.example.com', '128.0.0.1', '10.0.0.1', '[::2]'].some(isLoopbackHost)).toBe(false);
  });

  it('shows the host a redirect URI sends the browser to', () => {
    expect(redirectHost('https://claude.ai/api/mcp/auth_callback')).toBe('claude.ai');
    expect(redirectHost('http://127.0.0.1:33418/callback')).toBe('127.0.0.1:33418');
  });
});

describe('client ids', () => {
  it('takes an https URL with a path as a metadata document, http only where private URLs are allowed', () => {
    expect(isMetadataDocumentId('https://app.example.com/oauth/client.json', false)).toBe(true);
    expect(isMetadataDocumentId('https://app.example.com/', false)).toBe(false);
    expect(isMetadataDocumentId('http://127.0.0.1:3000/client.json', false)).toBe(false);
    expect(isMetadataDocumentId('http://127.0.0.1:3000/client.json', true)).toBe(true);
    expect(isMetadataDocumentId('oc_abc', true)).toBe(false);
  });
});

describe('OAuthError', () => {
  it('answers invalid_client with 401 and every other error with 400, as RFC 6749 §5.2 JSON', () => {
    expect(new OAuthError('invalid_client', 'unknown').status).toBe(401);
    expect(new OAuthError('invalid_grant', 'used').status).toBe(400);
    expect(JSON.stringify(new OAuthError('invalid_grant', 'used'))).toBe(
      '{"error":"invalid_grant","error_description":"used"}',
    );
  });
});

describe('the resource and its secrets', () => {
  it('names /mcp below the issuer as the resource', () => {
    expect(mcpResource('https://brand.example.com')).toBe('https://brand.example.com/mcp');
  });

  it('redacts OAuth access tokens, refresh tokens and codes wherever they stand', () => {
    const secret = 'AbC_dEf-123'.padEnd(43, 'x');
    expect(redactKeys(`Bearer oat_${secret}, ort_${secret}&code=oac_${secret}`)).toBe(
      'Bearer oat_[REDACTED], ort_[REDACTED]&code=oac_[REDACTED]',
    );
  });
});
