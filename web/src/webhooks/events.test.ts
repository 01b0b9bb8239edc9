import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../../src/contract/webhooks';
import { EVENT_GROUPS, eventsSummary } from './events';

describe('the event picker’s groups', () => {
  it('holds every event type exactly once, grouped by resource in the contract’s order', () => {
    expect(EVENT_GROUPS.flatMap((group) => group.events)).toEqual([...WEBHOOK_EVENT_TYPES]);
    expect(EVENT_GROUPS.map((group) => group.label)).toEqual([
      'Brand read keys',
      'Workspace API keys',
      'Transactional email keys',
      'Brand',
      'Campaigns',
      'Members',
      'Connected apps',
      'Email',
      'Webhook',
    ]);
  });
});

describe('eventsSummary', () => {
  it('names ["*"] "All events"', () => {
    expect(eventsSummary(['*'])).toBe('All events');
  });

  it('lists up to three events and counts the rest', () => {
    expect(eventsSummary(['brand.updated', 'member.added', 'member.removed'])).toBe(
      'brand.updated, member.added, member.removed',
    );
    expect(eventsSummary(['brand.updated', 'member.added', 'member.removed', 'campaign.created'])).toBe(
      'brand.updated, member.added and 2 more',
    );
  });
});
