import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import {
  emailWarnings,
  loadConfig,
  localBaseUrl,
  metricsWarnings,
  readLimitWarnings,
  relayAddress,
} from '../../config.js';
import { systemClock } from '../../core/clock.js';
import { keySigners } from '../../core/key-signature.js';
import { createLogger } from '../../logger.js';
import { type DemoSeed, seedDemo } from '../../services/demo/demo.js';
import { keySigningNotice, loadKeySigningSecret } from '../../services/keys/signing-secret.js';
import { SecretBox } from '../../services/shared/secret-box.js';
import { listWorkspaces } from '../../services/accounts/workspaces.js';
import { openStore } from '../../store/open-store.js';
import { curlCommand } from '../curl.js';
import { CONSOLE_DIR, INSTALL_DIR } from '../install-paths.js';
import { createOutput, setPasswordCommand } from '../output.js';

const SHUTDOWN_GRACE_MS = 10_000;
/** Webhook attempts in flight get this long to finish; the rest are released to another node. */
const DELIVERY_GRACE_MS = 8_000;

function demoBanner(baseUrl: string, kind: string, seed: DemoSeed): string {
  return [
    '',
    `Brand Context is running at ${baseUrl} (${kind}). Sign in to the console there.`,
    '',
    `  Demo workspace   ${seed.workspace_id}`,
    `  Owner login      ${seed.owner.email} / ${seed.owner.password}`,
    `  Brand read key   ${seed.brand_read_key}`,
    '',
    '  The key and the password are shown only this once: keep them in a secret manager.',
    '',
    'Read the brand context:',
    '',
    curlCommand(baseUrl, seed.brand_read_key, seed.workspace_id),
    '',
    `Connect an AI client (Claude, ChatGPT, Cursor, VS Code) to ${baseUrl}/mcp: docs/connect-ai-client.md`,
    '',
  ].join('\n');
}

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description(
      'start the HTTP service and its delivery worker; environment variables configure it (DATABASE_URL, PORT, HOST and the others: docs/configuration.md)',
    )
    .option('--demo', 'on an empty database, first create the demo workspace and print its key')
    .option('--json', 'print the demo seed as one JSON line')
    .action(async (options: { demo?: boolean; json?: boolean }) => {
      const config = loadConfig();
      const out = createOutput(options.json === true);
      // METRICS_TOKEN has no key shape to recognise: every line is masked for its value (src/logger.ts).
      const logger = createLogger(config.logLevel, undefined, [config.operations.metricsToken]);
      const store = await openStore(config.database);
      // Never from the database: from the environment, or a key file beside SQLite's (docs/keys.md "Brand read keys").
      const signing = await loadKeySigningSecret(config);
      const deps = { store, clock: systemClock, keySigners: keySigners(signing.secret) };
      // One box for the app and the worker, its key read (or made) before either starts (src/services/shared/secret-box.ts).
      const secrets = await SecretBox.load(store, config.delivery.encryptionKey);

      const workspaces = options.demo ? await listWorkspaces(deps) : [];
      const seed = options.demo && workspaces.length === 0 ? await seedDemo(deps) : undefined;
      // Loaded here, not with the CLI: every other command starts without the HTTP stack (a fifth of serve's
      // start-up CPU).
      const [{ buildApp }, { hasConsole }, { Metrics }, { BRAND_AGENT_PATH }] = await Promise.all([
        import('../../http/app.js'),
        import('../../http/console.js'),
        import('../../services/metrics/metrics.js'),
        import('../../http/routes/brand-agent.js'),
      ]);
      // One registry for the app and the delivery worker's outcomes; METRICS=off counts nothing.
      const metrics = config.operations.metrics ? new Metrics(BRAND_AGENT_PATH) : undefined;
      const consoleDir = hasConsole(CONSOLE_DIR) ? CONSOLE_DIR : undefined;
      if (!consoleDir) logger.warn(`no console at ${CONSOLE_DIR}: run npm run build to serve it`);
      const { readRateLimit, redisUrl } = config.operations;
      // One budget across nodes; without REDIS_URL (or with RATE_LIMIT_READS=off) no client is opened.
      const redis =
        readRateLimit && redisUrl !== undefined
          ? await import('../../services/brand/read-limits.js').then(
              async ({ connectRedis, redisAddress }) => {
                const client = await connectRedis(redisUrl);
                logger.info(
                  { redis: redisAddress(client) },
                  'reads share one RATE_LIMIT_READS budget across nodes through Redis',
                );
                return client;
              },
            )
          : undefined;
      // A request's objects are allocated young and die young, unless V8 decides, from the share of them alive at a
      // collection, to allocate them old from then on ("pretenuring"): with a few reads always in flight, it
      // did so in some processes, which then spent a third more CPU a read collecting garbage (docs/performance.md
      // "Garbage collection"). Set before the first request.
      setFlagsFromString('--no-allocation-site-pretenuring');
      const app = buildApp({
        store,
        secrets,
        keySigningSecret: signing.secret,
        logger,
        auth: config.auth,
        trustProxy: config.trustProxy,
        consoleDir,
        httpTimeouts: config.httpTimeouts,
        installDir: INSTALL_DIR,
        webhooks: config.delivery,
        email: config.email,
        readLimits: readRateLimit && { limit: readRateLimit, redis },
        metrics: metrics ?? false,
        metricsToken: config.operations.metricsToken,
        mcp: { allowedOrigins: config.mcpAllowedOrigins },
      });
      const { startDeliveryWorker } = await import('../../delivery/worker.js');
      const worker =
        config.delivery.workers > 0
          ? startDeliveryWorker({
              deps,
              secrets,
              config: config.delivery,
              smtpUrl: config.email.smtpUrl,
              emailFrom: config.email.from,
              logger,
              metrics,
            })
          : undefined;

      let stopping = false;
      const shutdown = (signal: NodeJS.Signals) => {
        if (stopping) {
          logger.warn({ signal }, 'second signal: exiting without waiting');
          process.exit(1);
        }
        stopping = true;
        logger.info({ signal }, 'shutting down: finishing in-flight requests');
        const force = setTimeout(() => {
          logger.error('in-flight requests did not finish in time; exiting');
          process.exit(1);
        }, SHUTDOWN_GRACE_MS);
        force.unref();
        void Promise.all([app.close(), worker?.stop(DELIVERY_GRACE_MS)])
          .then(() => {
            // No answer to wait for: a count in flight is lost at most, and a reconnecting client stops.
            redis?.disconnect();
            return store.close();
          })
          .then(() => {
            logger.info('stopped');
          });
      };
      // Before listening: a signal that arrives while starting up must still shut down cleanly.
      process.on('SIGTERM', shutdown);
      process.on('SIGINT', shutdown);

      await app.listen({ port: config.port, host: config.host });
      const address = app.server.address();
      const port = typeof address === 'object' && address !== null ? address.port : config.port;
      const baseUrl = localBaseUrl(config.host, port);
      if (config.email.smtpUrl !== undefined) {
        logger.info(
          { relay: relayAddress(config.email.smtpUrl) },
          'email goes out through the SMTP_URL relay',
        );
      }
      const signingNotice = keySigningNotice(signing.source);
      logger[signingNotice.level](signingNotice.message);
      for (const warning of [
        ...emailWarnings(config, baseUrl),
        ...metricsWarnings(config),
        ...readLimitWarnings(config),
      ])
        logger.warn(warning);

      if (seed) {
        out.result({ ...seed, url: baseUrl }, () => demoBanner(baseUrl, store.kind, seed));
      } else if (options.demo) {
        const workspaceId = workspaces[0]?.id ?? '<workspace_id>';
        // The owner's password was printed once, by the start that made the workspace: say how to set another.
        const owner =
          workspaces[0] &&
          (await store.workspaces.listMembers(workspaces[0].id)).find((member) => member.role === 'owner');
        out.result({ url: baseUrl, workspace_id: workspaceId }, () =>
          [
            '',
            `Brand Context is running at ${baseUrl} (${store.kind}). The database already has workspaces, so no demo was created.`,
            ...(owner
              ? [
                  `Sign in as ${owner.email} with the password printed when it was made, or set a new one (in another terminal):`,
                  setPasswordCommand(owner.email),
                ]
              : []),
            'A key is shown only when it is created. Make one with:',
            `  npx brand-context keys create --workspace ${workspaceId} --name "my script"`,
            '',
          ].join('\n'),
        );
      }
    });
}
