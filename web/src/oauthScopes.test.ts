import { describe, expect, it } from 'vitest';
import { OAUTH_SCOPES } from '../../src/core/oauth';
import { scopeDescription, scopeLabel } from './oauthScopes';

describe('scopeLabel and scopeDescription', () => {
  it('give every scope the service grants its own label and an explanation', () => {
    const labels = OAUTH_SCOPES.map(scopeLabel);
    expect(new Set(labels).size).toBe(OAUTH_SCOPES.length);
    for (const scope of OAUTH_SCOPES) {
      expect(scopeLabel(scope)).not.toBe(scope);
      expect(scopeDescription(scope)).not.toBe('');
    }
  });

  it('show a scope the console does not know as it is, with no explanation', () => {
    expect(scopeLabel('reports:read')).toBe('reports:read');
    expect(scopeDescription('reports:read')).toBe('');
  });
});
