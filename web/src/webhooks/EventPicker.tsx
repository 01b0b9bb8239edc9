import { useId } from 'react';
import { ALL_EVENTS, type WebhookEventType } from '../../../src/contract/webhooks';
import { EVENT_GROUPS, isAllEvents } from './events';

interface EventPickerProps {
  /** ["*"] for every event; otherwise the chosen ones (possibly none yet, which the service refuses). */
  value: readonly string[];
  onChange: (events: string[]) => void;
  error?: string | undefined;
}

/**
 * Which events an endpoint receives: all of them (["*"], which includes events added later), or those
 * ticked in the groups built from WEBHOOK_EVENT_TYPES.
 */
export function EventPicker({ value, onChange, error }: EventPickerProps) {
  const id = useId();
  const all = isAllEvents(value);
  const chosen = new Set(all ? [] : value);

  function toggle(event: WebhookEventType, on: boolean) {
    const next = new Set(chosen);
    if (on) next.add(event);
    else next.delete(event);
    // In the contract's order, whatever order they were ticked in.
    onChange(EVENT_GROUPS.flatMap((group) => group.events).filter((candidate) => next.has(candidate)));
  }

  return (
    <fieldset
      className={`event-picker${error === undefined ? '' : ' field-invalid'}`}
      aria-describedby={error === undefined ? undefined : `${id}-error`}
    >
      <legend>Events</legend>
      <label className="choice">
        <input
          type="radio"
          name={`${id}-scope`}
          checked={all}
          onChange={() => {
            onChange([ALL_EVENTS]);
          }}
        />
        <span>
          All events
          <span className="field-hint"> — every event, including ones added later</span>
        </span>
      </label>
      <label className="choice">
        <input
          type="radio"
          name={`${id}-scope`}
          checked={!all}
          onChange={() => {
            onChange([]);
          }}
        />
        Selected events
      </label>
      {/* Above the groups, not below their thirty-odd boxes: in view beside the first box to tick. */}
      {error !== undefined && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
      {!all && (
        <div className="event-groups">
          {EVENT_GROUPS.map((group) => (
            <fieldset key={group.label} className="event-group">
              <legend>{group.label}</legend>
              {group.events.map((event) => (
                <label key={event} className="choice">
                  <input
                    type="checkbox"
                    checked={chosen.has(event)}
                    onChange={(change) => {
                      toggle(event, change.target.checked);
                    }}
                  />
                  <code>{event}</code>
                </label>
              ))}
            </fieldset>
          ))}
        </div>
      )}
    </fieldset>
  );
}
