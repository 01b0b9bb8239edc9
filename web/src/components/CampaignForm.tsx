import type { SubmitEvent, ReactNode } from 'react';
import type { ApiError } from '../api';
import type { CampaignContent } from '../../../src/contract/campaigns';
import type { BrandCheckState } from '../useBrandCheck';
import { BrandCheckSummary, FieldFindings } from './BrandCheckFindings';
import { TextField } from './fields';

interface CampaignFormProps {
  content: CampaignContent;
  onChange: (content: CampaignContent) => void;
  onSubmit: () => void;
  /** Field errors of the last save. */
  error: ApiError | undefined;
  readOnly: boolean;
  pending: boolean;
  /** Above the fields: what holds for the whole campaign (it is read-only, and why). */
  children?: ReactNode;
  /** Just above Save draft: what answers a save (its alerts, "Saved"), where the user clicked. */
  footer?: ReactNode;
  /** The on-brand check as the user types (docs/brand-check.md "In the console"); none where it is not run. */
  check?: BrandCheckState | undefined;
}

/** The five fields of a campaign and its Save draft button, for new and existing drafts alike. */
export function CampaignForm({
  content,
  onChange,
  onSubmit,
  error,
  readOnly,
  pending,
  children,
  footer,
  check,
}: CampaignFormProps) {
  function field(name: keyof CampaignContent) {
    return {
      value: content[name],
      error: error?.fieldError(name),
      readOnly,
      onChange: (value: string) => {
        onChange({ ...content, [name]: value });
      },
    };
  }

  function submit(event: SubmitEvent) {
    event.preventDefault();
    onSubmit();
  }

  return (
    <form onSubmit={submit} className="stack campaign-form">
      {children}
      <TextField label="Name" required hint="Internal: recipients never see it." {...field('name')} />
      {check !== undefined && <BrandCheckSummary state={check} />}
      <TextField label="Subject" hint="One line, up to 255 characters." {...field('subject')} />
      {check !== undefined && <FieldFindings state={check} field="subject" label="Subject" />}
      <TextField
        label="Preheader"
        hint="The preview text inboxes show after the subject."
        {...field('preheader')}
      />
      <TextField
        label="HTML body"
        multiline
        rows={12}
        spellCheck={false}
        className="field-code"
        {...field('body_html')}
      />
      {check !== undefined && <FieldFindings state={check} field="html" label="HTML body" />}
      <TextField label="Text body" multiline rows={10} {...field('body_text')} />
      {check !== undefined && <FieldFindings state={check} field="text" label="Text body" />}
      {footer}
      {!readOnly && (
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={pending}>
            Save draft
          </button>
        </div>
      )}
    </form>
  );
}
