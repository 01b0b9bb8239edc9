import { Dialog } from '../components/Dialog';
import { TextField } from '../components/fields';
import { StatusMessage } from '../components/StatusMessage';
import { COPY_NOTICE, copyText, useNotice } from '../notice';
import type { CreatedWebhook } from '../../../src/contract/webhooks';

/** The signing secret of an endpoint just added, with a copy button (as Agent Access shows a new key). */
export function NewSecretDialog({ created, onDone }: { created: CreatedWebhook; onDone: () => void }) {
  const [notice, showNotice] = useNotice(COPY_NOTICE);
  return (
    <Dialog title="Your endpoint’s signing secret" onClose={onDone}>
      <div className="stack">
        <p>
          Deliveries to <code className="wrap-anywhere">{created.url}</code> are signed with this secret.
        </p>
        <TextField
          label="Signing secret"
          value={created.secret}
          readOnly
          spellCheck={false}
          className="field-secret"
        />
        <p className="callout">
          Store it where your receiver reads its secrets (e.g. <code>WEBHOOK_SECRET</code>), never in
          client-side code or a repository. Owners and admins can reveal it again on the endpoint’s page.
        </p>
        <div className="dialog-actions">
          <StatusMessage message={notice} />
          <button
            type="button"
            className="button"
            onClick={() => {
              copyText(created.secret, showNotice);
            }}
          >
            Copy secret
          </button>
          <button type="button" className="button button-primary" onClick={onDone}>
            Done
          </button>
        </div>
      </div>
    </Dialog>
  );
}
