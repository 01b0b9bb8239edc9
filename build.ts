/**
 * `npm run build`: bundles the command-line interface and the service it starts into dist/cli (main.js and the
 * chunks it imports), then vite builds the console into dist/web. Types are `npm run lint`'s to check (tsc
 * there covers src, tests and the console), so `npm start` and `npm test` do not wait 12 s for a second check.
 *
 * Why a bundle: Node.js 20 has no compile cache, and `serve` loaded 556 ES modules (Kysely alone about 260)
 * and 466 CommonJS files before its first answer, most of its cold start (docs/performance.md "Scale, measured").
 * What a command imports lazily (`await import()`) stays a chunk of its own, loaded only when needed.
 */
import { readFile, rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const OUT_DIR = fileURLToPath(new URL('dist/cli/', import.meta.url));

/** Packages loaded from node_modules at run time rather than bundled. */
const EXTERNAL = [
  // Finds its native addon from where its own module sits.
  'better-sqlite3',
  // pg's optional native binding, required only by `pg.native`, which nothing here uses.
  'pg-native',
  // Fastify requires these only for what the service never does: its default schema compilers (every route
  // is compiled by zod, src/http/app.ts) and `inject` (tests, which run the sources). Left out, they cost
  // nothing to parse; should one be needed, Node.js loads it from node_modules.
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'light-my-request',
  // CommonJS loaded with import(), which code splitting would hand only its default export, not its named
  // ones (https://github.com/evanw/esbuild/issues/3245): src/services/brand/read-limits.ts imports ioredis's
  // Redis so, and @fastify/cookie its own copy of `cookie`. Node.js gives both. The build fails on any other.
  'ioredis',
  '@fastify/cookie',
];

/**
 * Some bundled CommonJS packages read files of their own directory through `__dirname`, which an ES module
 * lacks: each module of node_modules that names it gets the `__dirname` and `__filename` of its file there,
 * resolved from the bundle when the module runs, so the installation can move.
 */
const packageDirname: Plugin = {
  name: 'package-dirname',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!/\b__(?:dirname|filename)\b/.test(source)) return undefined;
      // node_modules is outside dist/cli: the path starts with ../, as require.resolve needs.
      const fromBundle = relative(OUT_DIR, path).replaceAll('\\', '/');
      // On the first line, so that the source map's lines stay those of the file.
      const preamble = `var __filename = require.resolve(${JSON.stringify(fromBundle)}), __dirname = require("node:path").dirname(__filename);`;
      return { contents: `${preamble}${source}`, loader: 'js' };
    });
  },
};

await rm(OUT_DIR, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: [fileURLToPath(new URL('src/cli/main.ts', import.meta.url))],
  outdir: OUT_DIR,
  // Chunks sit beside main.js, so `import.meta.url` resolves from dist/cli wherever a module lands
  // (src/cli/install-paths.ts).
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: EXTERNAL,
  plugins: [packageDirname],
  // The CommonJS packages bundled (Fastify, pg, …) require Node's built-in modules and the externals.
  banner: {
    js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
  },
  // No keepNames: it names inner functions with a defineProperty on every call of the outer one, about ten on
  // each read (Fastify's hooks, our handlers), and that costs the hot path. A class a package declares twice
  // in one chunk is renamed instead, which a log's err.type shows (pg's DatabaseError2).
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
});

// A chunk of its own for a CommonJS module means an import() of it, which would lose its named exports.
const importedCommonJs = Object.values(metafile.outputs).flatMap(({ entryPoint }) =>
  entryPoint !== undefined && metafile.inputs[entryPoint]?.format === 'cjs' ? [entryPoint] : [],
);
if (importedCommonJs.length > 0)
  throw new Error(
    `import() of CommonJS, which the bundle would hand only its default export: add its package to EXTERNAL in build.ts: ${importedCommonJs.join(', ')}`,
  );
