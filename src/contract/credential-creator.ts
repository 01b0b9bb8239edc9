import { z } from 'zod';

/**
 * Who created a brand read key, workspace API key or webhook endpoint, as listings show it. Credentials
 * belong to the workspace, not to the person: they keep working when their creator leaves, so listings say
 * when that person is no longer a member (docs/management-api.md "Management API", removing a member).
 */
export const credentialCreatorSchema = z
  .object({
    user_id: z.string(),
    email: z.string().nullable().describe('Null when the account no longer exists'),
    former_member: z
      .boolean()
      .describe(
        'True when they are no longer a member of the workspace: what they created still works until someone revokes or disables it',
      ),
  })
  .meta({ id: 'CredentialCreator' });
export type CredentialCreator = z.output<typeof credentialCreatorSchema>;

/** The `creator` field of a listing: null for what the operator made with the CLI, or an unknown creator. */
export const listedCreatorSchema = credentialCreatorSchema
  .nullable()
  .describe(
    'Who created it, and whether they are still a member; null when the operator made it with the CLI, or it was made before its creator was recorded',
  );
