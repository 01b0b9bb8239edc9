import { z } from 'zod';
// The API's wording for zod's messages, so the console's own checks read as the service's do.
import '../../src/core/zod-messages';

/*
 * The console's Content-Security-Policy forbids eval, and zod probes `new Function` to compile its parsers,
 * which the browser reports as a CSP violation. Imported first by main.tsx: zod reads the setting when the
 * contract's schemas are built, as their modules load.
 */
z.config({ jitless: true });
