import { useState } from 'react';
import { api, url } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { ProblemAlert } from '../components/ProblemAlert';
import { SecretField } from '../components/SecretField';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { COPY_NOTICE, useNotice } from '../notice';
import type { WebhookSecret } from '../../../src/contract/webhooks';
import { useSubmit } from '../useSubmit';

interface SecretSectionProps {
  workspaceId: string;
  webhookId: string;
  onRotated: (secret: WebhookSecret) => void;
}

/**
 * The endpoint's signing secret: hidden until asked for (each reveal is audited), copied, and rotated with
 * a day's overlap during which the old secret signs beside the new one.
 */
export function SecretSection({ workspaceId, webhookId, onRotated }: SecretSectionProps) {
  const ids = { id: workspaceId, webhook_id: webhookId };
  const [shown, setShown] = useState<WebhookSecret | null>(null);
  const [rotating, setRotating] = useState(false);
  const reveal = useSubmit();
  const [notice, showNotice] = useNotice(COPY_NOTICE);

  return (
    <section className="section">
      <h2>Signing secret</h2>
      <p className="section-description">
        Every delivery is signed with it: your receiver checks the <code>webhook-signature</code> header
        against it. Rotate it if it may have leaked.
      </p>
      <ProblemAlert error={reveal.error} />
      {shown !== null && (
        <div className="secret-box">
          <SecretField label="Signing secret" value={shown.secret} />
          {shown.previous_secret_expires_at !== null && (
            <p className="field-hint">
              The previous secret also signs every delivery until{' '}
              <Time iso={shown.previous_secret_expires_at} withTime />.
            </p>
          )}
        </div>
      )}
      <div className="button-row">
        {shown === null ? (
          <button
            type="button"
            className="button"
            disabled={reveal.pending}
            onClick={() => {
              reveal.run(
                () => api.get(url('/api/v1/workspaces/{id}/webhooks/{webhook_id}/secret', ids)),
                setShown,
              );
            }}
          >
            Reveal secret
          </button>
        ) : (
          <>
            <CopyButton text={shown.secret} label="Copy secret" onNotice={showNotice} />
            <button
              type="button"
              className="button"
              onClick={() => {
                setShown(null);
              }}
            >
              Hide secret
            </button>
          </>
        )}
        <button
          type="button"
          className="button"
          onClick={() => {
            setRotating(true);
          }}
        >
          Rotate secret
        </button>
      </div>
      <StatusMessage message={notice} />
      {rotating && (
        <ConfirmDialog
          title="Rotate the signing secret?"
          explanation={
            <>
              A new secret signs every delivery from now on. The current one keeps signing beside it for 24
              hours, so that your receiver can switch to the new one without rejecting a delivery; after that
              only the new one is valid. A secret replaced earlier that is still signing stops at once.
            </>
          }
          confirmLabel="Rotate secret"
          action={() => api.post(url('/api/v1/workspaces/{id}/webhooks/{webhook_id}/rotate-secret', ids))}
          onCancel={() => {
            setRotating(false);
          }}
          onDone={(secret) => {
            setRotating(false);
            setShown(secret);
            onRotated(secret);
          }}
        />
      )}
    </section>
  );
}
