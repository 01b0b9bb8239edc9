import { isOAuthScope, type OAuthScope } from '../../src/core/oauth';

/**
 * What each OAuth scope lets a connected app do, in words a person deciding on the consent page reads
 * (docs/connect-ai-client.md "Connect an AI client"). A scope the console does not know yet is shown as it is.
 */
const SCOPE_WORDS: Record<OAuthScope, { label: string; description: string }> = {
  'brand:read': {
    label: 'Read the brand',
    description: 'Its voice, colors, fonts, knowledge, assets and skills.',
  },
  'campaigns:read': {
    label: 'Read campaign drafts',
    description: 'The workspace’s campaign drafts and their content.',
  },
  'campaigns:write': {
    label: 'Create and edit campaign drafts',
    description: 'Never send or schedule them: that stays with owners and admins.',
  },
};

/** The scope's short name for a checkbox or a table cell: "Read the brand". */
export function scopeLabel(scope: string): string {
  return isOAuthScope(scope) ? SCOPE_WORDS[scope].label : scope;
}

/** What the scope allows, beyond its label; empty for a scope the console does not know. */
export function scopeDescription(scope: string): string {
  return isOAuthScope(scope) ? SCOPE_WORDS[scope].description : '';
}
