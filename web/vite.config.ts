import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Paths relative to this file, so the build works from any working directory.
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    rollupOptions: {
      // zod's sources carry comments that Rollup cannot place and drops, saying so on every build: harmless
      // (the code is unchanged), and noise in `npm start`'s output.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('/node_modules/zod/') === true)
          return;
        warn(warning);
      },
    },
  },
  server: {
    // The console imports the service's contract (src/contract/) from outside web/.
    fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] },
    // `vite dev` beside a running service (PORT=8787): the console calls it on the same origin.
    proxy: {
      '/api': 'http://127.0.0.1:8787',
      '/auth': 'http://127.0.0.1:8787',
    },
  },
});
