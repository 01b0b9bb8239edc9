import { z } from 'zod';
import type { BrandKeyStatus } from '../core/key-lifecycle.js';

/** Where a key or personal access token is in its life (src/core/key-lifecycle.ts judges it). */
export const credentialStatusSchema = z.enum(['active', 'expired', 'revoked'] satisfies BrandKeyStatus[]);
