import { type SubmitEvent, useRef, useState } from 'react';
import { api, url } from '../api';
import { Dialog } from '../components/Dialog';
import { TextField } from '../components/fields';
import { ProblemAlert } from '../components/ProblemAlert';
import { ALL_EVENTS, type CreatedWebhook, type Webhook } from '../../../src/contract/webhooks';
import { useSubmit } from '../useSubmit';
import { EventPicker } from './EventPicker';

interface Fields {
  url: string;
  description: string;
  events: string[];
}

function sameEvents(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((event, index) => event === b[index]);
}

/** The PATCH body: only what changed (an emptied description clears it). */
function changesOf(before: Webhook, fields: Fields): Record<string, unknown> {
  const description = fields.description.trim() === '' ? null : fields.description;
  return {
    ...(fields.url !== before.url && { url: fields.url }),
    ...(!sameEvents(fields.events, before.events) && { events: fields.events }),
    ...(description !== before.description && { description }),
  };
}

/** Said before anything is sent: the service's own wording names the API field, not the form. */
const NO_EVENT = 'Choose at least one event, or All events.';

type EndpointDialogProps = { workspaceId: string; onCancel: () => void } & (
  | { editing?: undefined; onDone: (created: CreatedWebhook) => void }
  | { editing: Webhook; onDone: (updated: Webhook) => void }
);

/** Adds an endpoint, or (with `editing`) changes one's URL, events and description. */
export function EndpointDialog(props: EndpointDialogProps) {
  const { workspaceId, editing, onCancel } = props;
  const [fields, setFields] = useState<Fields>(() => ({
    url: editing?.url ?? '',
    description: editing?.description ?? '',
    events: editing?.events ?? [ALL_EVENTS],
  }));
  const { pending, error, run } = useSubmit();
  const [noEvent, setNoEvent] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const change = (next: Partial<Fields>) => {
    setFields((current) => ({ ...current, ...next }));
    if (next.events !== undefined && next.events.length > 0) setNoEvent(false);
  };

  function submit(event: SubmitEvent) {
    event.preventDefault();
    if (fields.events.length === 0) {
      setNoEvent(true);
      // Where the message is: the first event to tick.
      form.current?.querySelector<HTMLInputElement>('.event-groups input')?.focus();
      return;
    }
    if (props.editing === undefined) {
      const body = {
        url: fields.url,
        events: fields.events,
        ...(fields.description.trim() !== '' && { description: fields.description }),
      };
      run(() => api.post(url('/api/v1/workspaces/{id}/webhooks', { id: workspaceId }), body), props.onDone);
      return;
    }
    const { editing: before, onDone } = props;
    const changes = changesOf(before, fields);
    // Nothing changed: the service would refuse an empty change, and there is nothing to save.
    if (Object.keys(changes).length === 0) {
      onDone(before);
      return;
    }
    run(
      () =>
        api.patch(
          url('/api/v1/workspaces/{id}/webhooks/{webhook_id}', { id: workspaceId, webhook_id: before.id }),
          changes,
        ),
      onDone,
    );
  }

  return (
    <Dialog
      title={editing === undefined ? 'Add webhook endpoint' : 'Edit webhook endpoint'}
      onClose={onCancel}
    >
      <form ref={form} onSubmit={submit} className="stack dialog-wide">
        <ProblemAlert error={error} />
        <TextField
          label="Endpoint URL"
          type="url"
          value={fields.url}
          onChange={(url) => {
            change({ url });
          }}
          required
          spellCheck={false}
          placeholder="https://example.com/webhooks/brand-context"
          hint="Events are POSTed here as JSON, signed with the endpoint’s secret."
          error={error?.fieldError('url')}
        />
        <TextField
          label="Description"
          value={fields.description}
          onChange={(description) => {
            change({ description });
          }}
          hint="Optional: what receives these events, e.g. “CRM sync”."
          error={error?.fieldError('description')}
        />
        <EventPicker
          value={fields.events}
          onChange={(events) => {
            change({ events });
          }}
          error={noEvent ? NO_EVENT : error?.fieldError('events')}
        />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={pending}>
            {editing === undefined ? 'Add endpoint' : 'Save changes'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
