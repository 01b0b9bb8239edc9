import { BRAND_AGENT_PATH } from '../http/routes/brand-agent.js';

/** A ready-to-paste request for the read operation. */
export function curlCommand(baseUrl: string, key: string, workspaceId: string): string {
  const body = JSON.stringify({ action: 'context', workspace_id: workspaceId });
  return [
    `curl -sS -X POST ${baseUrl}${BRAND_AGENT_PATH}`,
    `  -H 'Authorization: Bearer ${key}'`,
    `  -H 'Content-Type: application/json'`,
    `  -d '${body}'`,
  ].join(' \\\n');
}
