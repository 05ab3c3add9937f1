// Process entry: configuration, the service, listen, graceful shutdown on SIGTERM/SIGINT.
import { loadConfig, ConfigError, settingNames } from './config.ts';
import { describeSecretSource, startService } from './server.ts';
import { StoreLockedError } from './infra/db/lock.ts';
import { createProvisioning } from './cli/provisioning.ts';
import { existsSync } from 'node:fs';
import { CONSOLE_DIST } from './platform/console-ui.ts';

/** `npm start -- --help`: what the service reads, then exit without starting anything. */
function printHelp() {
  console.log(
    [
      'Energy Platform Service',
      '',
      'Usage: npm start            (node src/main.ts)',
      '',
      'Runs the service. With no settings it runs on the embedded store (PGlite in ./data), an',
      'in-memory cache and an in-process bus, on http://127.0.0.1:8080. Every setting is an',
      'environment variable; docs/configuration.md says what each means and its default.',
      '',
      'Settings read:',
      ...settingNames().map((n) => `  ${n}`),
      '',
      'Provisioning (organisations, users, migrations): npm run cli -- --help',
    ].join('\n'),
  );
}

async function main() {
  if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
    printHelp();
    return;
  }
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`Configuration error: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  // The console is built by `npm ci` (prepare); a checkout without the build gets it here.
  if (!existsSync(`${CONSOLE_DIST}index.html`)) {
    const { buildConsole } = await import('../console/build.ts');
    await buildConsole().catch((err: Error) => console.warn(`console: build failed (${err.message}); the API is served without it`));
  }
  let service;
  try {
    service = await startService(config, { defaultMetrics: true });
  } catch (e) {
    if (e instanceof StoreLockedError) {
      console.error(e.message);
      process.exit(3);
    }
    throw e;
  }
  let shuttingDown = false;
  const shutdown = async (signal: string, code = 0) => {
    if (shuttingDown) return;
    shuttingDown = true;
    service.deps.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => process.exit(code || 1), 30_000);
    force.unref();
    await service.stop().catch((err) => service.deps.log.error({ err }, 'shutdown: stopping failed'));
    process.exit(code);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // The last resort behind the guarded entries (decision 0270). A rejected promise nobody handled
  // left no half-run synchronous code behind it: logged and counted, and the service carries on.
  // An uncaught exception may have stopped code half-way (a lock held, a counter not restored):
  // logged and counted, then the service stops the way SIGTERM stops it, in-flight requests
  // finished, and exits 1 for the supervisor to start it again.
  process.on('unhandledRejection', (reason) => service.deps.entries.failed('process.unhandledRejection', reason));
  process.on('uncaughtException', (err, origin) => {
    service.deps.entries.failed('process.uncaughtException', err, { origin });
    void shutdown('uncaughtException', 1);
  });

  const demo = config.seedDemo ? await createProvisioning(service.deps.db).seedDemo() : undefined;
  const address = await service.app.listen({ port: config.port, host: config.host });
  // Validators and serializers compile on first use; compile the rest now, off the first requests' path.
  // WARM_SCHEMAS=false (the release's default, decision 0487) leaves each to its first request.
  if (config.warmSchemas) setImmediate(() => service.deps.log.info({ compiled: service.warmSchemas() }, 'request and response schemas compiled'));
  const store = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  console.log(`\nEnergy Platform Service listening on ${address} (${store}, cache: ${service.deps.cache.kind}, bus: ${service.deps.bus.kind})`);
  console.log(`Console: ${address}/   API reference: ${address}/docs   OpenAPI: ${address}/openapi.json`);
  console.log(`Access-token secret: ${describeSecretSource(config)}`);
  if (demo) {
    console.log(`\nDemo organisation ${demo.organisation_id}: sign in as ORG_ADMIN with`);
    console.log(
      `  curl -s -X POST ${address}/api/auth/login -H 'Content-Type: application/json' \\\n` +
        `    -d '{"email":"${demo.email}","password":"${demo.password}"}'\n`,
    );
  }
}

main().catch((e) => {
  console.error('Failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
});
