import { capitalizedLabel, KEY_KIND_LIST } from '../../../src/core/key-kinds';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../../src/contract/webhooks';

export interface EventGroup {
  /** The fieldset's legend: "Brand read keys", "Campaigns", … */
  label: string;
  events: WebhookEventType[];
}

/** The resources whose events are not a key kind's, by the part of the event type before the dot. */
const RESOURCE_LABELS: Record<string, string> = {
  brand: 'Brand',
  campaign: 'Campaigns',
  member: 'Members',
  oauth_grant: 'Connected apps',
  email: 'Email',
  webhook: 'Webhook',
};

/** A key kind's events are named after its audit target; its group takes the name Agent Access gives it. */
function groupLabel(resource: string): string {
  const kind = KEY_KIND_LIST.find((candidate) => candidate.auditTarget === resource);
  if (kind !== undefined) return `${capitalizedLabel(kind)}s`;
  return RESOURCE_LABELS[resource] ?? resource;
}

/** WEBHOOK_EVENT_TYPES by resource, in the contract's order: the event picker's fieldsets. */
export const EVENT_GROUPS: readonly EventGroup[] = WEBHOOK_EVENT_TYPES.reduce<EventGroup[]>(
  (groups, event) => {
    const label = groupLabel(event.slice(0, event.indexOf('.')));
    const group = groups.find((candidate) => candidate.label === label);
    if (group === undefined) groups.push({ label, events: [event] });
    else group.events.push(event);
    return groups;
  },
  [],
);

export function isAllEvents(events: readonly string[]): boolean {
  return events.length === 1 && events[0] === ALL_EVENTS;
}

/** How a list of endpoints names what one receives: every event, or the first few of its own. */
export function eventsSummary(events: readonly string[], shown = 2): string {
  if (isAllEvents(events)) return 'All events';
  if (events.length <= shown + 1) return events.join(', ');
  return `${events.slice(0, shown).join(', ')} and ${String(events.length - shown)} more`;
}
