import { z } from 'zod';
import { ROLES } from '../core/roles.js';

/** A workspace as its member sees it: with the member's role in it. */
export const workspaceSchema = z
  .object({ id: z.string(), name: z.string(), created_at: z.string(), role: z.enum(ROLES) })
  .meta({ id: 'Workspace' });
export type Workspace = z.output<typeof workspaceSchema>;

export const workspaceListSchema = z.object({ workspaces: z.array(workspaceSchema) });
