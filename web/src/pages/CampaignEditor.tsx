import { useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { api, url } from '../api';
import { ConflictAlert } from '../components/ConflictAlert';
import { CampaignForm } from '../components/CampaignForm';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { StatusBadge } from '../components/StatusBadge';
import { StatusMessage } from '../components/StatusMessage';
import { useWorkspace } from '../components/WorkspaceGate';
import { versionEtag } from '../../../src/core/entity-tags';
import { useNotice } from '../notice';
import {
  CAMPAIGN_CONTENT_FIELDS,
  type Campaign,
  type CampaignContent,
  campaignContentSchema,
} from '../../../src/contract/campaigns';
import { useBrandCheck } from '../useBrandCheck';
import { useResource } from '../useResource';
import { useSubmit } from '../useSubmit';
import { useUnsavedChanges } from '../useUnsavedChanges';

const EMPTY = campaignContentSchema.parse(
  Object.fromEntries(CAMPAIGN_CONTENT_FIELDS.map((field) => [field, ''])),
);

function contentOf(campaign: Campaign): CampaignContent {
  return campaignContentSchema.parse(campaign);
}

/** The copy of a campaign as the on-brand check takes it (the preheader and name are not checked). */
function checkedCopy(content: CampaignContent) {
  return { subject: content.subject, text: content.body_text, html: content.body_html };
}

function sameContent(a: CampaignContent, b: CampaignContent): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** What a 412 means here, in the words of someone editing a draft. */
const CONFLICT = {
  detail: 'Someone else changed this draft since you opened it, so your changes were not saved.',
  resolution:
    'Reload to see their version, then make your changes again. Until you reload, your text stays here to copy.',
};

/** Location state of a draft just created: its editor opens with "Saved". */
interface CreatedState {
  created: true;
}

function isCreated(state: unknown): state is CreatedState {
  return typeof state === 'object' && state !== null && 'created' in state;
}

/** `campaigns/new`: nothing exists until the first Save draft. */
export function NewCampaign() {
  const workspace = useWorkspace();
  const navigate = useNavigate();
  const [content, setContent] = useState(EMPTY);
  const { pending, error, run } = useSubmit();
  const unsaved = useUnsavedChanges(!sameContent(content, EMPTY));
  const check = useBrandCheck(workspace.id, checkedCopy(content));

  function save() {
    run(
      () => api.post(url('/api/v1/workspaces/{id}/campaigns', { id: workspace.id }), content),
      (campaign) => {
        // Saved: on to the draft's own page, unasked.
        unsaved.leaveFreely();
        const state: CreatedState = { created: true };
        void navigate(`/w/${encodeURIComponent(workspace.id)}/campaigns/${encodeURIComponent(campaign.id)}`, {
          replace: true,
          state,
        });
      },
    );
  }

  return (
    <>
      <PageHeader title="New draft" eyebrow="Campaign drafts" />
      <CampaignForm
        content={content}
        onChange={setContent}
        onSubmit={save}
        error={error}
        readOnly={false}
        pending={pending}
        check={check}
        footer={<ProblemAlert error={error} />}
      />
      {unsaved.dialog}
    </>
  );
}

export function CampaignEditor() {
  const workspace = useWorkspace();
  const { campaignId = '' } = useParams();
  const campaign = useResource(
    url('/api/v1/workspaces/{id}/campaigns/{campaign_id}', { id: workspace.id, campaign_id: campaignId }),
  );
  const state: unknown = useLocation().state;

  if (campaign.data === undefined)
    return (
      <>
        <PageHeader
          title={campaign.error === undefined ? 'Loading campaign…' : 'Campaign not available'}
          eyebrow="Campaign drafts"
        />
        <ProblemAlert error={campaign.error} />
      </>
    );
  // Each load (a Reload after a conflict included) starts the form afresh from what the service holds.
  return (
    <DraftEditor
      key={campaign.loadedAt}
      workspaceId={workspace.id}
      loaded={campaign.data}
      justCreated={isCreated(state)}
      onReload={campaign.reload}
    />
  );
}

interface DraftEditorProps {
  workspaceId: string;
  loaded: Campaign;
  justCreated: boolean;
  onReload: () => void;
}

function DraftEditor({ workspaceId, loaded, justCreated, onReload }: DraftEditorProps) {
  const [saved, setSaved] = useState(loaded);
  const [content, setContent] = useState(() => contentOf(loaded));
  const { pending, error, run } = useSubmit();
  const [notice, showNotice] = useNotice({ initial: justCreated ? 'Saved' : null });
  const [lockedReason, setLockedReason] = useState<string | null>(null);

  const readOnly = saved.status !== 'draft' || lockedReason !== null;
  const conflict = error?.code === 'version_mismatch';
  const unsaved = useUnsavedChanges(!readOnly && !sameContent(content, contentOf(saved)));
  // Sent campaigns are checked too: what went out against the brand as it is now.
  const check = useBrandCheck(workspaceId, checkedCopy(content));

  function save() {
    showNotice(null);
    run(
      () =>
        api.patch(
          url('/api/v1/workspaces/{id}/campaigns/{campaign_id}', { id: workspaceId, campaign_id: saved.id }),
          content,
          // The version this edit is based on: a newer one answers 412 instead of being overwritten.
          { headers: { 'if-match': versionEtag(saved.version) } },
        ),
      (campaign) => {
        setSaved(campaign);
        showNotice('Saved');
      },
      (problem) => {
        if (problem.code === 'campaign_not_draft') setLockedReason(problem.detail);
      },
    );
  }

  return (
    <>
      <PageHeader title={saved.name} eyebrow="Campaign drafts">
        <p className="meta-row">
          <StatusBadge status={saved.status} />
          <span className="muted">Version {saved.version}</span>
        </p>
      </PageHeader>
      <CampaignForm
        content={content}
        onChange={(next) => {
          setContent(next);
          showNotice(null);
        }}
        onSubmit={save}
        error={conflict ? undefined : error}
        readOnly={readOnly}
        pending={pending}
        check={check}
        footer={
          <>
            {conflict ? <ConflictAlert {...CONFLICT} onReload={onReload} /> : <ProblemAlert error={error} />}
            <StatusMessage message={notice} />
          </>
        }
      >
        {readOnly && lockedReason === null && (
          <p className="callout">This campaign is {saved.status}: only drafts can be edited.</p>
        )}
      </CampaignForm>
      {unsaved.dialog}
    </>
  );
}
