import { z } from 'zod';
import { KEY_STATUSES } from '../core/key-lifecycle.js';

/** Where a key or personal access token is in its life (src/core/key-lifecycle.ts judges it). */
export const credentialStatusSchema = z.enum(KEY_STATUSES);
