import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Relative to src/cli in the sources and to dist/cli once built: the build bundles every module of the CLI
 * into dist/cli (build.ts), whichever directory it came from.
 */

/** `npm run build` puts the console beside the CLI: dist/web next to dist/cli. */
export const CONSOLE_DIR = fileURLToPath(new URL('../web/', import.meta.url));
/** The installation: the directory holding dist/cli/main.js (`npx --prefix` finds the command there). */
export const INSTALL_DIR = resolve(fileURLToPath(new URL('../../', import.meta.url)));
