import { SecretDialog } from '../components/SecretDialog';
import type { CreatedWebhook } from '../../../src/contract/webhooks';

/** The signing secret of an endpoint just added, with a copy button (as Agent Access shows a new key). */
export function NewSecretDialog({ created, onDone }: { created: CreatedWebhook; onDone: () => void }) {
  return (
    <SecretDialog
      title="Your endpoint’s signing secret"
      intro={
        <p>
          Deliveries to <code className="wrap-anywhere">{created.url}</code> are signed with this secret.
        </p>
      }
      label="Signing secret"
      value={created.secret}
      copyLabel="Copy secret"
      advice={
        <p className="callout">
          Store it where your receiver reads its secrets (e.g. <code>WEBHOOK_SECRET</code>), never in
          client-side code or a repository. Owners and admins can reveal it again on the endpoint’s page.
        </p>
      }
      onDone={onDone}
    />
  );
}
