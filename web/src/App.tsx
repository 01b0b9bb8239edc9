import { createBrowserRouter, createRoutesFromElements, Navigate, Route } from 'react-router';
import { RequireSession } from './components/RequireSession';
import { Shell } from './components/Shell';
import { WorkspaceGate } from './components/WorkspaceGate';
import { AcceptInvite } from './pages/AcceptInvite';
import { AccessTokens } from './pages/AccessTokens';
import { AgentAccess } from './pages/AgentAccess';
import { AuditLog } from './pages/AuditLog';
import { Brand } from './pages/Brand';
import { BrandHistory } from './pages/BrandHistory';
import { BrandVersion } from './pages/BrandVersion';
import { CampaignEditor, NewCampaign } from './pages/CampaignEditor';
import { Campaigns } from './pages/Campaigns';
import { Connect } from './pages/Connect';
import { EmailSettings } from './pages/Email';
import { Home } from './pages/Home';
import { Members } from './pages/Members';
import { NotFound } from './pages/NotFound';
import { ResetPassword } from './pages/ResetPassword';
import { SignIn } from './pages/SignIn';
import { WebhookEndpoint } from './pages/WebhookEndpoint';
import { Webhooks } from './pages/Webhooks';

/**
 * The console's pages (docs/console.md "Pages and their addresses"). A data router, so that editors can hold a
 * navigation while their unsaved changes wait for an answer (useUnsavedChanges).
 */
export const router = createBrowserRouter(
  createRoutesFromElements(
    <>
      <Route path="/sign-in" element={<SignIn />} />
      <Route path="/accept-invite" element={<AcceptInvite />} />
      <Route path="/reset-password" element={<ResetPassword />} />
      <Route element={<RequireSession />}>
        {/* Consent to an app: a page of its own, outside any workspace (docs/connect-ai-client.md). */}
        <Route path="/connect" element={<Connect />} />
        <Route element={<Shell />}>
          <Route index element={<Home />} />
          <Route path="w/:workspaceId" element={<WorkspaceGate />}>
            <Route index element={<Navigate to="brand" replace />} />
            <Route path="brand" element={<Brand />} />
            <Route path="brand/history" element={<BrandHistory />} />
            <Route path="brand/history/:version" element={<BrandVersion />} />
            <Route path="campaigns" element={<Campaigns />} />
            <Route path="campaigns/new" element={<NewCampaign />} />
            <Route path="campaigns/:campaignId" element={<CampaignEditor />} />
            <Route path="members" element={<Members />} />
            <Route path="audit-log" element={<AuditLog />} />
            <Route path="settings/agent-access" element={<AgentAccess />} />
            <Route path="settings/webhooks" element={<Webhooks />} />
            <Route path="settings/webhooks/:webhookId" element={<WebhookEndpoint />} />
            <Route path="settings/email" element={<EmailSettings />} />
          </Route>
          <Route path="account/tokens" element={<AccessTokens />} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Route>
    </>,
  ),
);
